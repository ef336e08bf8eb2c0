import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { connectNats } from './connect.js';
import { digestOf } from './digest.js';
import { ensureJournal, type JournalResources } from './ensure-journal.js';
import { getPayload, putPayload } from './payloads.js';

describe('payloads', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let res: JournalResources;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connectNats({ servers: server.url });
    res = await ensureJournal(nc, 'pl');
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('stores a payload by digest and reads it back', async () => {
    const bytes = new TextEncoder().encode('{"amount":500}');
    const put = await putPayload(res, bytes);
    expect(put).toEqual({ digest: digestOf(bytes), bytes: bytes.byteLength });
    expect(put.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await getPayload(res, put.digest)).toEqual(bytes);
    const again = await putPayload(res, bytes);
    expect(again).toEqual(put);
    expect(await getPayload(res, digestOf('never stored'))).toBeNull();
  });

  it('stores a payload larger than one object chunk', async () => {
    const big = new Uint8Array(600 * 1024).map((_, i) => i % 251);
    const put = await putPayload(res, big);
    const back = await getPayload(res, put.digest);
    expect(back?.byteLength).toBe(big.byteLength);
    expect(digestOf(back!)).toBe(put.digest);
  });
});
