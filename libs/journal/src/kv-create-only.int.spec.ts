import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { connectNats } from './connect.js';
import { ensureJournal, type JournalResources } from './ensure-journal.js';
import { kvCreateOnly, kvGetJson } from './kv-create-only.js';
import { encodeKvKey } from './kv-key.js';

describe('kvCreateOnly', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let res: JournalResources;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connectNats({ servers: server.url });
    res = await ensureJournal(nc, 'kv');
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('the first create wins; a second returns the existing value', async () => {
    const key = encodeKvKey('req 7f3a/ü');
    const first = await kvCreateOnly(res.kv.requests, key, { invocation_id: 'act_1', command_digest: 'sha256:a' });
    expect(first.created).toBe(true);
    const second = await kvCreateOnly(res.kv.requests, key, { invocation_id: 'act_2', command_digest: 'sha256:b' });
    expect(second).toEqual({
      created: false,
      existing: { invocation_id: 'act_1', command_digest: 'sha256:a' },
      revision: first.revision,
    });
    expect(await kvGetJson(res.kv.requests, key)).toEqual({
      value: { invocation_id: 'act_1', command_digest: 'sha256:a' },
      revision: first.revision,
    });
  });

  it('concurrent creates of one key: exactly one wins, all see the same value', async () => {
    const key = encodeKvKey('scope/race-key');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => kvCreateOnly(res.kv.idempotency, key, { i })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const winner = (await kvGetJson<{ i: number }>(res.kv.idempotency, key))!.value;
    for (const r of results) if (!r.created) expect(r.existing).toEqual(winner);
  });

  it('kvGetJson is null for a missing or deleted key', async () => {
    expect(await kvGetJson(res.kv.leases, 'absent')).toBeNull();
    await res.kv.leases.put('gone', '{}');
    await res.kv.leases.delete('gone');
    expect(await kvGetJson(res.kv.leases, 'gone')).toBeNull();
    const again = await kvCreateOnly(res.kv.leases, 'gone', { back: true });
    expect(again.created).toBe(true);
  });
});
