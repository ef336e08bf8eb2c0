import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { EventType, type JournalEvent, type StoredEvent } from '@postern/contract';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { connectNats } from './connect.js';
import { ensureJournal, type JournalResources } from './ensure-journal.js';
import { Journal } from './journal.js';
import { readRange, readStream } from './stream-reader.js';

const PREFIX = 'sr';

function event(invocationId: string, n: number): JournalEvent {
  return {
    type: EventType.ACTION_ACCEPTED,
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

async function waitFor(cond: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('stream readers', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let res: JournalResources;
  let journal: Journal;
  const seqs: number[] = [];

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connectNats({ servers: server.url });
    res = await ensureJournal(nc, PREFIX);
    journal = new Journal(res, PREFIX, 'w1');
    // Interleave three invocations so stream order differs from per-invocation order.
    const last: Record<string, number> = {};
    for (let n = 1; n <= 4; n++) {
      for (const id of ['act_a', 'act_b', 'act_c']) {
        const r = await journal.append(event(id, n), last[id] ?? 0);
        if (r.status !== 'appended') throw new Error('append failed');
        last[id] = r.seq;
        seqs.push(r.seq);
      }
    }
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('readStream delivers from a sequence in stream order, then follows new events', async () => {
    const got: StoredEvent[] = [];
    const from = seqs[5]!;
    const reader = await readStream(res, {
      fromSeq: from,
      onEvent: async (ev) => {
        got.push(ev);
      },
    });
    await waitFor(() => got.length === seqs.length - 5);
    expect(got.map((e) => e.seq)).toEqual(seqs.slice(5));
    const r = await journal.append(event('act_new', 1), 0);
    await waitFor(() => got.length === seqs.length - 4);
    expect(got.at(-1)!.invocation_id).toBe('act_new');
    expect(got.at(-1)!.seq).toBe(r.status === 'appended' ? r.seq : -1);
    await reader.stop();
    await reader.done;
    const countAfterStop = got.length;
    await journal.append(event('act_new', 2), got.at(-1)!.seq);
    await new Promise((res2) => setTimeout(res2, 200));
    expect(got).toHaveLength(countAfterStop);
  });

  it('readStream handles one event at a time', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let count = 0;
    const reader = await readStream(res, {
      fromSeq: 1,
      onEvent: async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        count++;
      },
    });
    await waitFor(() => count >= seqs.length);
    await reader.stop();
    expect(maxInFlight).toBe(1);
  });

  it('readStream rejects done when onEvent throws, and stops on abort', async () => {
    const failing = await readStream(res, {
      fromSeq: 1,
      onEvent: async () => {
        throw new Error('projector broke');
      },
    });
    await expect(failing.done).rejects.toThrow('projector broke');

    const ac = new AbortController();
    let count = 0;
    const reader = await readStream(res, {
      fromSeq: 1,
      signal: ac.signal,
      onEvent: async () => {
        count++;
      },
    });
    await waitFor(() => count > 0);
    ac.abort();
    await reader.done;
  });

  it('readRange replays up to the last sequence at start and reports progress', async () => {
    const got: number[] = [];
    const progress: Array<[number, number]> = [];
    const lastAtStart = await journal.lastSeq();
    const last = await readRange(res, {
      fromSeq: 1,
      onEvent: async (ev) => {
        got.push(ev.seq);
      },
      onProgress: (seq, lastSeq) => progress.push([seq, lastSeq]),
    });
    expect(last).toBe(lastAtStart);
    expect(got).toEqual(Array.from({ length: lastAtStart }, (_, i) => i + 1));
    expect(progress.at(-1)).toEqual([lastAtStart, lastAtStart]);
  });

  it('readRange honours fromSeq/toSeq and returns at once for an empty range', async () => {
    const got: number[] = [];
    const last = await readRange(res, {
      fromSeq: 3,
      toSeq: 6,
      onEvent: async (ev) => {
        got.push(ev.seq);
      },
    });
    expect(got).toEqual([3, 4, 5, 6]);
    expect(last).toBe(6);
    const none = await readRange(res, { fromSeq: 10_000, onEvent: async () => undefined });
    expect(none).toBe(9_999);
  });
});
