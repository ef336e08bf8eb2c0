import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats, ensureJournal, type JournalResources } from '@postern/journal';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { AttemptLease } from './attempt-lease.js';
import { LeaseStore } from './lease-store.js';

describe('AttemptLease on KV', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let res: JournalResources;
  let store: LeaseStore;
  let clock = 1_000_000;
  const now = () => clock;

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectNats({ servers: nats.url });
    res = await ensureJournal(nc, 'lse');
    store = new LeaseStore(res.kv.leases);
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  const claim = (id: string, holder: string) => ({ invocation_id: id, holder, attempt: 1, lease_ms: 3000 });

  it('creates the first lease at generation 1 and keeps others out while it lives', async () => {
    const a = await AttemptLease.acquire(store, claim('act_l1', 'A'), now);
    expect(a.kind).toBe('acquired');
    if (a.kind !== 'acquired') return;
    expect(a.lease.generation).toBe(1);
    const b = await AttemptLease.acquire(store, claim('act_l1', 'B'), now);
    expect(b).toEqual({ kind: 'busy', wait_ms: 3000, holder: 'A' });
    expect(await a.lease.stillOurs()).toBe(true);
  });

  it('lets the next holder in after expiry with the next generation, and the old holder then fails to renew', async () => {
    const a = await AttemptLease.acquire(store, claim('act_l2', 'A'), now);
    if (a.kind !== 'acquired') throw new Error('not acquired');
    clock += 3_001;
    const b = await AttemptLease.acquire(store, claim('act_l2', 'B'), now);
    if (b.kind !== 'acquired') throw new Error('not acquired');
    expect(b.lease.generation).toBe(2);
    expect(await a.lease.renew()).toBe(false);
    expect(a.lease.lost).toBe(true);
    expect(await b.lease.renew()).toBe(true);
    expect((await store.read('act_l2'))?.lease.holder).toBe('B');
  });

  it('settles two writers deciding from the same entry: one wins the compare-and-set', async () => {
    const [x, y] = await Promise.all([
      AttemptLease.acquire(store, claim('act_l3', 'X'), now),
      AttemptLease.acquire(store, claim('act_l3', 'Y'), now),
    ]);
    const kinds = [x.kind, y.kind].sort();
    expect(kinds).toContain('acquired');
    expect(kinds.filter((k) => k === 'acquired')).toHaveLength(1);
  });

  it('releases so the next attempt need not wait, and a released lease is no longer ours', async () => {
    const a = await AttemptLease.acquire(store, claim('act_l4', 'A'), now);
    if (a.kind !== 'acquired') throw new Error('not acquired');
    expect(await a.lease.release()).toBe(true);
    const entry = await store.read('act_l4');
    expect(entry?.lease.released).toBe(true);
    const b = await AttemptLease.acquire(store, claim('act_l4', 'B'), now);
    expect(b.kind === 'acquired' && b.lease.generation).toBe(2);
    expect(await store.keys()).toEqual(expect.arrayContaining(['act_l1', 'act_l2', 'act_l3', 'act_l4']));
  });

  it('adopts its own renewal that landed although its answer was lost, and goes on renewing', async () => {
    const a = await AttemptLease.acquire(store, claim('act_l5', 'A'), now);
    if (a.kind !== 'acquired') throw new Error('not acquired');
    // What a renewal whose PubAck an outage swallowed leaves: the entry moved on, still ours.
    const entry = (await store.read('act_l5'))!;
    await store.write('act_l5', { ...entry.lease, expires_at_ms: entry.lease.expires_at_ms + 1 }, entry.revision);
    expect(await a.lease.renew()).toBe(true);
    expect(a.lease.lost).toBe(false);
    expect(await a.lease.renew()).toBe(true);
    expect(await a.lease.stillOurs()).toBe(true);
  });

  it('loses nothing to a KV that does not answer: the lease renews once NATS is back', async () => {
    const a = await AttemptLease.acquire(store, claim('act_l6', 'A'), now);
    if (a.kind !== 'acquired') throw new Error('not acquired');
    const restarted = nats.restart({ downForMs: 7_000 });
    await new Promise((r) => setTimeout(r, 300));
    // The write is not answered while the server is away; the clock has not run out.
    expect(await a.lease.renew()).toBe(true);
    expect(a.lease.lost).toBe(false);
    await restarted;
    let renewed = false;
    for (let i = 0; i < 50 && !renewed; i++) {
      renewed = await a.lease.renew().then((ok) => ok && !a.lease.lost);
      if (!renewed) await new Promise((r) => setTimeout(r, 200));
    }
    expect(renewed).toBe(true);
    expect((await store.read('act_l6'))?.lease).toMatchObject({ holder: 'A', generation: 1 });
  }, 30_000);
});
