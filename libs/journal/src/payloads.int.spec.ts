import { describe, expect, it } from 'vitest';
import { digestOf } from './digest.js';
import { useOwnJournal } from './own-journal.fixture.js';
import { getPayload, putPayload } from './payloads.js';

describe('payloads', () => {
  const own = useOwnJournal('pl');

  it('stores a payload by digest and reads it back', async () => {
    const bytes = new TextEncoder().encode('{"amount":500}');
    const put = await putPayload(own.res, bytes);
    expect(put).toEqual({ digest: digestOf(bytes), bytes: bytes.byteLength });
    expect(put.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await getPayload(own.res, put.digest)).toEqual(bytes);
    const again = await putPayload(own.res, bytes);
    expect(again).toEqual(put);
    expect(await getPayload(own.res, digestOf('never stored'))).toBeNull();
  });

  it('stores a payload larger than one object chunk', async () => {
    const big = new Uint8Array(600 * 1024).map((_, i) => i % 251);
    const put = await putPayload(own.res, big);
    const back = await getPayload(own.res, put.digest);
    expect(back?.byteLength).toBe(big.byteLength);
    expect(digestOf(back!)).toBe(put.digest);
  });
});
