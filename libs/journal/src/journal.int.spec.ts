import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { EventType, type JournalEvent } from '@postern/contract';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { connectNats } from './connect.js';
import { ensureJournal, type JournalResources } from './ensure-journal.js';
import { Journal } from './journal.js';

const PREFIX = 'jt';
let counter = 0;
function newId(): string {
  counter++;
  return `act_test${String(counter).padStart(6, '0')}`;
}

function event(invocationId: string, n: number, type: EventType = EventType.ACTION_ACCEPTED): JournalEvent {
  return {
    type,
    invocation_id: invocationId,
    n,
    attempt: 0,
    generation: 0,
    at: '2026-01-01T00:00:00.000Z',
    source: 'transport_observed',
    service: 'intake',
    data: { n },
  };
}

describe('Journal', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let res: JournalResources;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connectNats({ servers: server.url });
    res = await ensureJournal(nc, PREFIX);
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('reads nothing for an unknown or malformed invocation id', async () => {
    const j = new Journal(res, PREFIX, 'w1');
    expect(await j.read('act_unknown')).toEqual([]);
    expect(await j.read('not.a.token')).toEqual([]);
  });

  it('appends in order and reads back with stream sequences and headers', async () => {
    const j = new Journal(res, PREFIX, 'w1');
    const id = newId();
    const a1 = await j.append(event(id, 1), 0);
    expect(a1.status).toBe('appended');
    const s1 = a1.status === 'appended' ? a1.seq : -1;
    const a2 = await j.append(event(id, 2, EventType.PREFLIGHT_VALIDATED), s1);
    const a3 = await j.append(event(id, 3, EventType.CREDENTIAL_AUTHORIZED), a2.status === 'appended' ? a2.seq : -1);
    expect(a2.status).toBe('appended');
    expect(a3.status).toBe('appended');
    const history = await j.read(id);
    expect(history.map((e) => e.n)).toEqual([1, 2, 3]);
    expect(history.map((e) => e.type)).toEqual([
      EventType.ACTION_ACCEPTED,
      EventType.PREFLIGHT_VALIDATED,
      EventType.CREDENTIAL_AUTHORIZED,
    ]);
    const seqs = history.map((e) => e.seq);
    expect(seqs[0]).toBe(s1);
    expect(seqs[1]!).toBeGreaterThan(seqs[0]!);
    expect(seqs[2]!).toBeGreaterThan(seqs[1]!);
    expect(history[1]!.data).toEqual({ n: 2 });

    const stored = await res.jsm.streams.getMessage(res.names.stream, { seq: seqs[1]! });
    expect(stored?.header.get('Postern-Event')).toBe(EventType.PREFLIGHT_VALIDATED);
    expect(stored?.header.get('Nats-Msg-Id')).toBe(`${id}.2.w1`);
    expect(await j.lastSeq()).toBeGreaterThanOrEqual(seqs[2]!);
  });

  it('reads ~20 events of one invocation among others quickly', async () => {
    const j = new Journal(res, PREFIX, 'w1');
    const id = newId();
    const other = newId();
    let last = 0;
    let lastOther = 0;
    for (let n = 1; n <= 20; n++) {
      const r = await j.append(event(id, n), last);
      if (r.status !== 'appended') throw new Error('append failed');
      last = r.seq;
      const o = await j.append(event(other, n), lastOther);
      if (o.status !== 'appended') throw new Error('append failed');
      lastOther = o.seq;
    }
    const t0 = Date.now();
    const history = await j.read(id);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(history.map((e) => e.n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(history.every((e) => e.invocation_id === id)).toBe(true);
  });

  it('a second writer with a stale expected sequence loses and learns the winner', async () => {
    const a = new Journal(res, PREFIX, 'writer-a');
    const b = new Journal(res, PREFIX, 'writer-b');
    const id = newId();
    const first = await a.append(event(id, 1), 0);
    if (first.status !== 'appended') throw new Error('append failed');
    const win = await a.append(event(id, 2), first.seq);
    expect(win.status).toBe('appended');
    const lose = await b.append(event(id, 2), first.seq);
    expect(lose).toEqual({ status: 'lost', winner: `${id}.2.writer-a` });
    const racers = await b.append(event(id, 1), 0);
    expect(racers.status).toBe('lost');
    expect((await a.read(id)).map((e) => e.n)).toEqual([1, 2]);
  });

  it('two concurrent writers racing for the same place: exactly one wins', async () => {
    const a = new Journal(res, PREFIX, 'race-a');
    const b = new Journal(res, PREFIX, 'race-b');
    for (let round = 0; round < 20; round++) {
      const id = newId();
      const first = await a.append(event(id, 1), 0);
      if (first.status !== 'appended') throw new Error('append failed');
      const results = await Promise.all([a.append(event(id, 2), first.seq), b.append(event(id, 2), first.seq)]);
      expect(results.filter((r) => r.status === 'appended')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'lost')).toHaveLength(1);
      const history = await a.read(id);
      expect(history.filter((e) => e.n === 2)).toHaveLength(1);
      expect(history).toHaveLength(2);
      const winnerIdx = results.findIndex((r) => r.status === 'appended');
      const winner = results[winnerIdx]!;
      const loser = results[1 - winnerIdx]!;
      expect(history[1]!.seq).toBe(winner.status === 'appended' ? winner.seq : -1);
      expect(loser).toEqual({ status: 'lost', winner: `${id}.2.${winnerIdx === 0 ? 'race-a' : 'race-b'}` });
    }
  });

  it('two concurrent writers racing for the first place: exactly one wins', async () => {
    const a = new Journal(res, PREFIX, 'first-a');
    const b = new Journal(res, PREFIX, 'first-b');
    for (let round = 0; round < 10; round++) {
      const id = newId();
      const results = await Promise.all([a.append(event(id, 1), 0), b.append(event(id, 1), 0)]);
      expect(results.map((r) => r.status).sort()).toEqual(['appended', 'lost']);
      expect(await a.read(id)).toHaveLength(1);
    }
  });

  it('repeating the exact same append stores one event and settles as appended', async () => {
    const j = new Journal(res, PREFIX, 'w-dup');
    const id = newId();
    const first = await j.append(event(id, 1), 0);
    const again = await j.append(event(id, 1), 0);
    expect(first.status).toBe('appended');
    expect(again).toEqual(first);
    expect(await j.read(id)).toHaveLength(1);
  });

  it('settles an append whose earlier publish landed but whose ack was lost', async () => {
    const j = new Journal(res, PREFIX, 'w-lost-ack');
    const id = newId();
    const ev = event(id, 1);
    // The first publish "landed" without the writer seeing the PubAck.
    const h = headers();
    h.set('Postern-Event', ev.type);
    const landed = await res.js.publish(res.names.eventSubject(id), JSON.stringify(ev), {
      msgID: j.msgId(id, 1),
      headers: h,
      expect: { lastSubjectSequence: 0 },
    });
    const settled = await j.append(ev, 0);
    expect(settled).toEqual({ status: 'appended', seq: landed.seq });
    expect(await j.read(id)).toHaveLength(1);
  });

  it('settles a stale-expected append whose own event is already last', async () => {
    const j = new Journal(res, PREFIX, 'w-own-last');
    const id = newId();
    const first = await j.append(event(id, 1), 0);
    if (first.status !== 'appended') throw new Error('append failed');
    // Same msg id but a different expected sequence: the dedupe answers first.
    const again = await j.append(event(id, 1), 12345);
    expect(again).toEqual(first);
  });

  it('appendNext numbers events from the history and skips when build returns null', async () => {
    const j = new Journal(res, PREFIX, 'w-next');
    const id = newId();
    const r1 = await j.appendNext(id, (history) => {
      expect(history).toEqual([]);
      const { n: _n, invocation_id: _i, ...draft } = event(id, 0);
      return draft;
    });
    expect(r1.status).toBe('appended');
    if (r1.status !== 'appended') return;
    expect(r1.event.n).toBe(1);
    expect(r1.history).toHaveLength(1);
    const r2 = await j.appendNext(id, (history) => {
      const { n: _n, invocation_id: _i, ...draft } = event(id, 0, EventType.PREFLIGHT_VALIDATED);
      return history.length === 1 ? draft : null;
    });
    expect(r2.status).toBe('appended');
    if (r2.status !== 'appended') return;
    expect(r2.event.n).toBe(2);
    expect(r2.event.seq).toBeGreaterThan(r1.event.seq);
    const r3 = await j.appendNext(id, () => null);
    expect(r3.status).toBe('skipped');
    expect(r3.status === 'skipped' ? r3.history.map((e) => e.n) : []).toEqual([1, 2]);
  });

  it('appendNext reports a lost race', async () => {
    const a = new Journal(res, PREFIX, 'next-a');
    const b = new Journal(res, PREFIX, 'next-b');
    const id = newId();
    const draft = (): Omit<JournalEvent, 'n' | 'invocation_id'> => {
      const { n: _n, invocation_id: _i, ...d } = event(id, 0);
      return d;
    };
    const results = await Promise.all([a.appendNext(id, draft), b.appendNext(id, draft)]);
    const statuses = results.map((r) => r.status).sort();
    // Both may read an empty history before either appends; then exactly one wins.
    if (statuses.includes('lost')) expect(statuses).toEqual(['appended', 'lost']);
    else expect(statuses).toEqual(['appended', 'appended']);
    const history = await a.read(id);
    expect(history.map((e) => e.n)).toEqual(statuses.includes('lost') ? [1] : [1, 2]);
  });

  it('throws JournalUnavailableError when the server does not answer', async () => {
    const lone = await startNatsServer();
    const lnc = await connectNats({ servers: lone.url });
    try {
      const lres = await ensureJournal(lnc, PREFIX, { apiTimeoutMs: 300 });
      const j = new Journal(lres, PREFIX, 'w-down', { publishTimeoutMs: 300, maxTries: 2 });
      await lone.stop();
      await expect(j.append(event(newId(), 1), 0)).rejects.toMatchObject({ name: 'JournalUnavailableError' });
    } finally {
      await lnc.close();
      await lone.stop();
    }
  });
});
