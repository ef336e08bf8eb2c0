import { describe, expect, it } from 'vitest';
import { useOwnJournal } from './own-journal.fixture.js';
import { kvCreateOnly, kvGetJson } from './kv-create-only.js';
import { encodeKvKey } from './kv-key.js';

describe('kvCreateOnly', () => {
  const own = useOwnJournal('kv');

  it('the first create wins; a second returns the existing value', async () => {
    const key = encodeKvKey('req 7f3a/ü');
    const first = await kvCreateOnly(own.res.kv.requests, key, { invocation_id: 'act_1', command_digest: 'sha256:a' });
    expect(first.created).toBe(true);
    const second = await kvCreateOnly(own.res.kv.requests, key, { invocation_id: 'act_2', command_digest: 'sha256:b' });
    expect(second).toEqual({
      created: false,
      existing: { invocation_id: 'act_1', command_digest: 'sha256:a' },
      revision: first.revision,
    });
    expect(await kvGetJson(own.res.kv.requests, key)).toEqual({
      value: { invocation_id: 'act_1', command_digest: 'sha256:a' },
      revision: first.revision,
    });
  });

  it('concurrent creates of one key: exactly one wins, all see the same value', async () => {
    const key = encodeKvKey('scope/race-key');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => kvCreateOnly(own.res.kv.idempotency, key, { i })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const winner = (await kvGetJson<{ i: number }>(own.res.kv.idempotency, key))!.value;
    for (const r of results) if (!r.created) expect(r.existing).toEqual(winner);
  });

  it('kvGetJson is null for a missing or deleted key', async () => {
    expect(await kvGetJson(own.res.kv.leases, 'absent')).toBeNull();
    await own.res.kv.leases.put('gone', '{}');
    await own.res.kv.leases.delete('gone');
    expect(await kvGetJson(own.res.kv.leases, 'gone')).toBeNull();
    const again = await kvCreateOnly(own.res.kv.leases, 'gone', { back: true });
    expect(again.created).toBe(true);
  });
});
