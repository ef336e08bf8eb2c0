import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  AnomalyReason,
  Code,
  EventType,
  Outcome,
  Phase,
  Status,
  subjects,
  type RecordView,
} from '@postern/contract';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { SQLITE_FILE_NAME } from './db-target.js';
import { appendEvents, appendRaw, fixtureId, InvocationScript } from './journal.fixture.js';
import { startProjector, type RunningProjector } from './projector-app.js';

const PREFIX = 'projtest';
const WAIT_MS = 10_000;

let nats: NatsServerHandle;
let nc: NatsConnection;
let js: JetStreamClient;
let home: string;
let running: RunningProjector;
let lastSeq = 0;

const A = new InvocationScript(fixtureId(1)).accepted().validated().authorized().dispatched().completed(201);
const B = new InvocationScript(fixtureId(2)).accepted().rejected(Code.MISSING_FIELD, 'http.url');
const C = new InvocationScript(fixtureId(3))
  .accepted()
  .validated()
  .authorized()
  .connectionFailed(1)
  .connectionFailed(2)
  .connectionFailed(3);
const D = new InvocationScript(fixtureId(4)).accepted().validated();
const E = new InvocationScript(fixtureId(5)).accepted().validated().authorized().dispatched().completed(404);

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < deadline && i < 10_000; i++) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function get(path: string, base = running.url): Promise<{ status: number; body: any; text: string; type: string }> {
  const res = await fetch(`${base.replace('0.0.0.0', '127.0.0.1')}${path}`);
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, body, text, type: res.headers.get('content-type') ?? '' };
}

async function waitForSeq(seq: number, base = running.url): Promise<void> {
  await waitUntil(`last_seq ${seq}`, async () => {
    const h = await get('/healthz', base);
    return h.body?.last_seq >= seq ? true : undefined;
  });
}

async function append(...scripts: InvocationScript[]): Promise<void> {
  for (const s of scripts) {
    const seqs = await appendEvents(js, PREFIX, s.events);
    lastSeq = Math.max(lastSeq, ...seqs);
  }
}

async function allRecords(base = running.url): Promise<RecordView[]> {
  return (await get('/v1/invocations?limit=500', base)).body.invocations;
}

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  js = jetstream(nc);
  home = await mkdtemp(join(tmpdir(), 'postern-projector-'));
  running = await startProjector({ natsUrl: nats.url, prefix: PREFIX, home, httpPort: 0 });
  await append(A, B, C, D, E);
  await waitForSeq(lastSeq);
});

afterAll(async () => {
  await running?.close();
  await nc?.close();
  await nats?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('read API over the projected journal', () => {
  it('binds to loopback without a token and reports health', async () => {
    expect(running.host).toBe('127.0.0.1');
    const h = await get('/healthz');
    expect(h.status).toBe(200);
    expect(h.body).toEqual({ status: 'ok', last_seq: lastSeq, db: 'sqlite' });
  });

  it('lists every invocation newest first', async () => {
    const r = await get('/v1/invocations');
    expect(r.status).toBe(200);
    expect(r.type).toContain('application/json');
    const ids = r.body.invocations.map((v: RecordView) => v.invocation_id);
    expect(ids).toEqual([E.id, D.id, C.id, B.id, A.id]);
  });

  it('filters by outcome', async () => {
    const r = await get(`/v1/invocations?outcome=${Outcome.not_attempted}`);
    expect(r.body.invocations.map((v: RecordView) => v.invocation_id)).toEqual([D.id, C.id, B.id]);
    const c = await get(`/v1/invocations?outcome=${Outcome.committed}`);
    expect(c.body.invocations.map((v: RecordView) => v.invocation_id)).toEqual([A.id]);
  });

  it('filters by phase and code', async () => {
    const p = await get(`/v1/invocations?phase=${Phase.connection_setup}`);
    expect(p.body.invocations.map((v: RecordView) => v.invocation_id)).toEqual([C.id]);
    const c = await get(`/v1/invocations?code=${Code.REMOTE_REJECTED}`);
    expect(c.body.invocations.map((v: RecordView) => v.invocation_id)).toEqual([E.id]);
    const both = await get(`/v1/invocations?phase=${Phase.validation}&code=${Code.MISSING_FIELD}`);
    expect(both.body.invocations.map((v: RecordView) => v.invocation_id)).toEqual([B.id]);
  });

  it('pages with after_seq and limit', async () => {
    const all = await allRecords();
    const cLast = all.find((v) => v.invocation_id === C.id)!.journal.last_seq;
    const after = await get(`/v1/invocations?after_seq=${cLast}`);
    expect(after.body.invocations.map((v: RecordView) => v.invocation_id)).toEqual([E.id, D.id]);
    const two = await get('/v1/invocations?limit=2');
    expect(two.body.invocations).toHaveLength(2);
  });

  it('refuses an unknown enum value with BAD_REQUEST naming the field', async () => {
    const r = await get('/v1/invocations?outcome=perhaps');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(Code.BAD_REQUEST);
    expect(r.body.error.field).toBe('outcome');
    const l = await get('/v1/invocations?limit=-3');
    expect(l.status).toBe(400);
    expect(l.body.error.field).toBe('limit');
  });

  it('serves one record as the contract RecordView', async () => {
    const r = await get(`/v1/invocations/${A.id}`);
    expect(r.status).toBe(200);
    const v = r.body as RecordView;
    expect(v.invocation_id).toBe(A.id);
    expect(v.status).toBe(Status.resolved);
    expect(v.outcome).toBe(Outcome.committed);
    expect(v.error).toBeNull();
    expect(v.evidence.dispatch_started).toBe(true);
    expect(v.evidence.response_status).toBe(201);
    expect(v.journal.events).toBe(A.events.length);
    const b = (await get(`/v1/invocations/${B.id}`)).body as RecordView;
    expect(b.error?.code).toBe(Code.MISSING_FIELD);
    expect(b.error?.phase).toBe(Phase.validation);
    expect(b.outcome).toBe(Outcome.not_attempted);
    const d = (await get(`/v1/invocations/${D.id}`)).body as RecordView;
    expect(d.status).toBe(Status.pending);
  });

  it('answers NOT_FOUND for an unknown invocation', async () => {
    const r = await get(`/v1/invocations/${fixtureId(404)}`);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe(Code.NOT_FOUND);
    const e = await get(`/v1/invocations/${fixtureId(404)}/events`);
    expect(e.status).toBe(404);
  });

  it('lists the events of an invocation in order, each with its seq', async () => {
    const r = await get(`/v1/invocations/${C.id}/events`);
    expect(r.status).toBe(200);
    const events = r.body.events as Array<{ n: number; seq: number; type: string }>;
    expect(events.map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.map((e) => e.type)).toEqual(C.events.map((e) => e.type));
    for (let i = 1; i < events.length; i++) expect(events[i]!.seq).toBeGreaterThan(events[i - 1]!.seq);
  });

  it('counts invocations by phase and outcome', async () => {
    const r = await get('/v1/stats');
    expect(r.status).toBe(200);
    const rows = r.body.by_phase_outcome as Array<{ phase: string; outcome: string; count: number }>;
    const count = (phase: string, outcome: string) => rows.find((x) => x.phase === phase && x.outcome === outcome)?.count;
    expect(count(Phase.remote_execution, Outcome.committed)).toBe(1);
    expect(count(Phase.remote_execution, Outcome.rejected)).toBe(1);
    expect(count(Phase.validation, Outcome.not_attempted)).toBe(1);
    expect(count(Phase.connection_setup, Outcome.not_attempted)).toBe(1);
    expect(count(Phase.credential_injection, Outcome.not_attempted)).toBe(1);
    expect(rows.reduce((n, x) => n + x.count, 0)).toBe(5);
  });

  it('exposes Prometheus metrics', async () => {
    const r = await get('/metrics');
    expect(r.status).toBe(200);
    expect(r.type).toContain('text/plain');
    expect(r.text).toContain('postern_invocations_total{phase="validation",outcome="not_attempted",code="MISSING_FIELD"} 1\n');
    expect(r.text).toContain('postern_invocations_total{phase="remote_execution",outcome="committed",code=""} 1\n');
    expect(r.text).toContain(`postern_projector_last_seq ${lastSeq}\n`);
    expect(r.text).toContain('postern_anomalies_total 0\n');
    // Fixture events are 250 ms apart: every latency lands in the 0.25 s bucket, none in 0.1 s.
    expect(r.text).toContain(`postern_stage_latency_seconds_bucket{type="${EventType.PREFLIGHT_VALIDATED}",le="0.1"} 0\n`);
    expect(r.text).toContain(`postern_stage_latency_seconds_bucket{type="${EventType.PREFLIGHT_VALIDATED}",le="0.25"} 4\n`);
    expect(r.text).toContain(`postern_stage_latency_seconds_count{type="${EventType.PREFLIGHT_VALIDATED}"} 4\n`);
  });
});

describe('anomalies', () => {
  it('refuses an event that moves a committed invocation back to not_attempted, leaving the record as it was', async () => {
    const before = (await get(`/v1/invocations/${A.id}`)).body;
    const bad = new InvocationScript(A.id);
    bad.add(EventType.PREFLIGHT_REJECTED, { code: Code.MISSING_FIELD, field: 'http.url' }, { n: A.events.length + 1 });
    const [seq] = await appendEvents(js, PREFIX, bad.events);
    lastSeq = seq!;
    await waitForSeq(seq!);
    const anomalies = (await get('/v1/anomalies')).body.anomalies;
    const found = anomalies.find((a: { seq: number }) => a.seq === seq);
    expect(found).toMatchObject({
      seq,
      invocation_id: A.id,
      type: EventType.PREFLIGHT_REJECTED,
      reason: AnomalyReason.outcome_regression,
    });
    expect(found.event.type).toBe(EventType.PREFLIGHT_REJECTED);
    expect((await get(`/v1/invocations/${A.id}`)).body).toEqual(before);
    expect((await get(`/v1/invocations/${A.id}/events`)).body.events).toHaveLength(A.events.length);
  });

  it('refuses an event that skips its place in the invocation', async () => {
    const before = (await get(`/v1/invocations/${D.id}`)).body;
    const gap = new InvocationScript(D.id);
    gap.add(EventType.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 1 } }, { n: D.events.length + 2 });
    const [seq] = await appendEvents(js, PREFIX, gap.events);
    lastSeq = seq!;
    await waitForSeq(seq!);
    const anomalies = (await get('/v1/anomalies')).body.anomalies;
    expect(anomalies.find((a: { seq: number }) => a.seq === seq)).toMatchObject({
      invocation_id: D.id,
      reason: AnomalyReason.sequence_gap,
    });
    expect((await get(`/v1/invocations/${D.id}`)).body).toEqual(before);
  });

  it('keeps a message that is not JSON as an anomaly and projects what follows', async () => {
    const seq = await appendRaw(js, PREFIX, fixtureId(6), '{"type": "ACTION_ACC');
    const F = new InvocationScript(fixtureId(7)).accepted();
    await append(F);
    await waitForSeq(lastSeq);
    const anomalies = (await get('/v1/anomalies')).body.anomalies;
    expect(anomalies.find((a: { seq: number }) => a.seq === seq)).toMatchObject({
      invocation_id: fixtureId(6),
      reason: AnomalyReason.malformed,
      event: '{"type": "ACTION_ACC',
    });
    expect((await get(`/v1/invocations/${F.id}`)).status).toBe(200);
    expect((await get(`/v1/invocations/${fixtureId(6)}`)).status).toBe(404);
  });

  it('refuses an event whose body names another invocation than its subject', async () => {
    const other = new InvocationScript(fixtureId(8)).accepted();
    const seq = await appendRaw(js, PREFIX, fixtureId(9), JSON.stringify(other.events[0]));
    lastSeq = seq;
    await waitForSeq(seq);
    const anomalies = (await get('/v1/anomalies')).body.anomalies;
    expect(anomalies.find((a: { seq: number }) => a.seq === seq)).toMatchObject({
      invocation_id: fixtureId(9),
      reason: AnomalyReason.wrong_invocation,
    });
    expect((await get(`/v1/invocations/${fixtureId(8)}`)).status).toBe(404);
  });

  it('counts anomalies in the metrics and pages them', async () => {
    expect((await get('/metrics')).text).toContain('postern_anomalies_total 4\n');
    const first = (await get('/v1/anomalies?limit=1')).body.anomalies;
    expect(first).toHaveLength(1);
    const rest = (await get(`/v1/anomalies?after_seq=${first[0].seq}`)).body.anomalies;
    expect(rest).toHaveLength(3);
  });
});

describe('replay and restart', () => {
  it('rebuilds identical records over NATS after the SQLite file was deleted', async () => {
    const before = await allRecords();
    const anomaliesBefore = (await get('/v1/anomalies')).body;
    const eventsBefore = (await get(`/v1/invocations/${C.id}/events`)).body;
    const file = join(home, SQLITE_FILE_NAME);
    for (const suffix of ['', '-wal', '-shm']) await rm(file + suffix, { force: true });

    const progressSubject = `${PREFIX}.test.progress`;
    const progress: Array<{ seq: number; last_seq: number }> = [];
    const sub = nc.subscribe(progressSubject, { callback: (_e, m) => progress.push(m.json()) });
    const reply = await nc.request(subjects(PREFIX).projectorReplay, JSON.stringify({ progress_subject: progressSubject }), {
      timeout: 20_000,
    });
    const summary = reply.json<Record<string, number>>();
    const totalEvents = [A, B, C, D, E].reduce((n, s) => n + s.events.length, 0) + 1;
    expect(summary).toEqual({ events: totalEvents, invocations: 6, anomalies: 4, last_seq: lastSeq });
    await nc.flush();
    await waitUntil('final progress', async () => (progress.at(-1)?.seq === lastSeq ? true : undefined));
    expect(progress.at(-1)).toEqual({ seq: lastSeq, last_seq: lastSeq });
    sub.unsubscribe();

    await stat(file);
    expect(await allRecords()).toEqual(before);
    expect((await get('/v1/anomalies')).body.anomalies.map((a: { seq: number }) => a.seq)).toEqual(
      anomaliesBefore.anomalies.map((a: { seq: number }) => a.seq),
    );
    expect((await get(`/v1/invocations/${C.id}/events`)).body).toEqual(eventsBefore);
  });

  it('answers a replay request that is not JSON with BAD_REQUEST', async () => {
    const reply = await nc.request(subjects(PREFIX).projectorReplay, 'not json', { timeout: 5_000 });
    expect(reply.json<{ error: { code: string } }>().error.code).toBe(Code.BAD_REQUEST);
    const bad = await nc.request(subjects(PREFIX).projectorReplay, JSON.stringify({ progress_subject: 'a.>' }), {
      timeout: 5_000,
    });
    expect(bad.json<{ error: { field: string } }>().error.field).toBe('progress_subject');
  });

  it('follows live events after a replay', async () => {
    const G = new InvocationScript(fixtureId(10)).accepted().rejected(Code.FORBIDDEN_HEADER, 'http.headers.authorization');
    await append(G);
    await waitForSeq(lastSeq);
    const g = (await get(`/v1/invocations/${G.id}`)).body as RecordView;
    expect(g.error?.code).toBe(Code.FORBIDDEN_HEADER);
  });

  it('does not apply anything twice after a restart', async () => {
    const before = await allRecords();
    const summaryBefore = await running.projector.summary();
    await running.close();
    // Appended while the projector is down: picked up from the checkpoint on start.
    const more = new InvocationScript(D.id);
    more.add(EventType.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 1 } }, { n: D.events.length + 1 });
    const [seq] = await appendEvents(js, PREFIX, more.events);
    lastSeq = seq!;
    running = await startProjector({ natsUrl: nats.url, prefix: PREFIX, home, httpPort: 0 });
    await waitForSeq(lastSeq);
    const after = await running.projector.summary();
    expect(after).toEqual({ ...summaryBefore, events: summaryBefore.events + 1, last_seq: lastSeq });
    const d = (await get(`/v1/invocations/${D.id}`)).body as RecordView;
    expect(d.journal.events).toBe(D.events.length + 1);
    const unchanged = (await allRecords()).filter((v) => v.invocation_id !== D.id);
    expect(unchanged).toEqual(before.filter((v) => v.invocation_id !== D.id));
  });

  it('skips a redelivered message at or below the checkpoint', async () => {
    const summaryBefore = await running.projector.summary();
    const events = (await get(`/v1/invocations/${A.id}/events`)).body.events as Array<{ seq: number }>;
    const first = events[0]!;
    const result = await running.projector.apply([
      { seq: first.seq, subject: subjects(PREFIX).evt(A.id), data: new TextEncoder().encode(JSON.stringify(A.events[0])) },
    ]);
    expect(result).toEqual({ applied: 0, anomalies: 0, skipped: 1, lastSeq });
    expect(await running.projector.summary()).toEqual(summaryBefore);
  });

  it('builds an empty read model from sequence 1 on start', async () => {
    const freshHome = await mkdtemp(join(tmpdir(), 'postern-projector-fresh-'));
    const fresh = await startProjector({ natsUrl: nats.url, prefix: PREFIX, home: freshHome, httpPort: 0 });
    try {
      await waitForSeq(lastSeq, fresh.url);
      expect(await allRecords(fresh.url)).toEqual(await allRecords());
      expect(await fresh.projector.summary()).toEqual(await running.projector.summary());
    } finally {
      await fresh.close();
      await rm(freshHome, { recursive: true, force: true });
    }
  });
});
