import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { EventType, type JournalEvent } from '@postern/contract';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { connectNats } from './connect.js';
import { durableConsumer } from './durable-consumer.js';
import { ensureJournal, type JournalResources } from './ensure-journal.js';
import { Journal } from './journal.js';

const PREFIX = 'dc';

function event(invocationId: string, n: number, type: EventType): JournalEvent {
  return {
    type,
    invocation_id: invocationId,
    n,
    attempt: 0,
    generation: 0,
    at: '2026-01-01T00:00:00.000Z',
    source: 'transport_observed',
    service: 'intake',
    data: {},
  };
}

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('durableConsumer', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let nc2: NatsConnection;
  let res: JournalResources;
  let res2: JournalResources;
  let journal: Journal;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connectNats({ servers: server.url });
    nc2 = await connectNats({ servers: server.url });
    res = await ensureJournal(nc, PREFIX);
    res2 = await ensureJournal(nc2, PREFIX);
    journal = new Journal(res, PREFIX, 'w1');
  });
  afterAll(async () => {
    await nc?.close();
    await nc2?.close();
    await server?.stop();
  });

  async function appendMany(tag: string, count: number, type: EventType): Promise<void> {
    for (let i = 0; i < count; i++) {
      const r = await journal.append(event(`act_${tag}${i}`, 1, type), 0);
      if (r.status !== 'appended') throw new Error('append failed');
    }
  }

  it('two processes sharing the durable name split the events, none handled twice', async () => {
    const N = 40;
    await appendMany('split', N, EventType.ACTION_ACCEPTED);
    const handled: Array<{ who: string; seq: number }> = [];
    const handler = (who: string) => async (ev: { seq: number }) => {
      handled.push({ who, seq: ev.seq });
      await new Promise((r) => setTimeout(r, 5));
      return 'ack' as const;
    };
    const a = await durableConsumer(res, { durable: 'split', handle: handler('a') });
    const b = await durableConsumer(res2, { durable: 'split', handle: handler('b') });
    expect(a.name).toBe('dc_split');
    await waitFor(() => handled.length >= N);
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all([a.stop(), b.stop()]);
    const seqs = handled.map((h) => h.seq);
    expect(new Set(seqs).size).toBe(N);
    expect(seqs).toHaveLength(N);
    expect(handled.some((h) => h.who === 'a')).toBe(true);
    expect(handled.some((h) => h.who === 'b')).toBe(true);
    const info = await res.jsm.consumers.info(res.names.stream, 'dc_split');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it('redelivers a nak-ed event and a throwing handler’s event', async () => {
    const before = await journal.lastSeq();
    await appendMany('nak', 2, EventType.ACTION_ACCEPTED);
    const seen = new Map<number, number>();
    const c = await durableConsumer(res, {
      durable: 'naker',
      deliverNew: false,
      errorDelayMs: 100,
      handle: async (ev) => {
        if (ev.seq <= before) return 'ack';
        const times = (seen.get(ev.seq) ?? 0) + 1;
        seen.set(ev.seq, times);
        if (times === 1) {
          if (ev.seq === before + 1) return 'nak';
          throw new Error('handler failed');
        }
        return 'ack';
      },
    });
    await waitFor(() => seen.get(before + 1) === 2 && seen.get(before + 2) === 2);
    await c.stop();
    expect([...seen.values()]).toEqual([2, 2]);
  });

  it('passes only the wanted event types and acks the rest', async () => {
    const start = await journal.lastSeq();
    await appendMany('typed-skip', 3, EventType.ACTION_ACCEPTED);
    await appendMany('typed-take', 2, EventType.LEASE_ACQUIRED);
    const got: string[] = [];
    const c = await durableConsumer(res, {
      durable: 'typed',
      filterSubject: res.names.eventSubjects,
      eventTypes: [EventType.LEASE_ACQUIRED],
      handle: async (ev) => {
        if (ev.seq > start) got.push(ev.type);
        return 'ack';
      },
    });
    await waitFor(() => got.length === 2);
    await new Promise((r) => setTimeout(r, 200));
    await c.stop();
    expect(got).toEqual([EventType.LEASE_ACQUIRED, EventType.LEASE_ACQUIRED]);
    const info = await res.jsm.consumers.info(res.names.stream, 'dc_typed');
    expect(info.num_pending).toBe(0);
    expect(info.num_ack_pending).toBe(0);
  });

  it('stop() stops: later events wait for the next process', async () => {
    let count = 0;
    const c = await durableConsumer(res, {
      durable: 'stopper',
      deliverNew: true,
      handle: async () => {
        count++;
        return 'ack';
      },
    });
    await appendMany('stop-before', 1, EventType.ACTION_ACCEPTED);
    await waitFor(() => count === 1);
    await c.stop();
    await appendMany('stop-after', 2, EventType.ACTION_ACCEPTED);
    await new Promise((r) => setTimeout(r, 300));
    expect(count).toBe(1);
    const info = await res.jsm.consumers.info(res.names.stream, 'dc_stopper');
    expect(info.num_pending + info.num_ack_pending).toBe(2);

    const next = await durableConsumer(res, {
      durable: 'stopper',
      handle: async () => {
        count++;
        return 'ack';
      },
    });
    await waitFor(() => count === 3);
    await next.stop();
  });

  it('hands a message back with a delay when the handler asks for one', async () => {
    await appendMany('delay', 1, EventType.CREDENTIAL_AUTHORIZED);
    const seen: number[] = [];
    const c = await durableConsumer(res, {
      durable: 'delay',
      filterSubject: res.names.eventSubject('act_delay0'),
      handle: async () => {
        seen.push(Date.now());
        return seen.length === 1 ? { nak_delay_ms: 400 } : 'ack';
      },
    });
    await waitFor(() => seen.length >= 2);
    await c.stop();
    expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(350);
    expect(seen).toHaveLength(2);
  });
});
