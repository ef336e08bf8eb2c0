import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AnomalyReason, Code, EventType, Outcome, Phase, subjects, type RecordView } from '@postern/contract';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { appendEvents, appendRaw, fixtureId, InvocationScript } from './journal.fixture.js';
import { startProjector, type RunningProjector } from './projector-app.js';

const PREFIX = 'pgtest';
const DB = `postern_test_${randomBytes(6).toString('hex')}`;
const ADMIN = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };
const DB_URL = `postgresql://postgres@127.0.0.1:5432/${DB}`;

let nats: NatsServerHandle;
let nc: NatsConnection;
let js: JetStreamClient;
let home: string;
let running: RunningProjector;
let lastSeq = 0;

const A = new InvocationScript(fixtureId(1)).accepted().validated().authorized().dispatched().completed(200);
const B = new InvocationScript(fixtureId(2)).accepted().rejected(Code.TARGET_NOT_ALLOWED, 'http.url');
const C = new InvocationScript(fixtureId(3)).accepted().validated().authorized().connectionFailed(1);

async function admin(sql: string): Promise<void> {
  const client = new pg.Client(ADMIN);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function get(path: string): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`http://127.0.0.1:${running.port}${path}`);
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, body, text };
}

async function waitForSeq(seq: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let i = 0; Date.now() < deadline && i < 10_000; i++) {
    const h = await get('/healthz').catch(() => null);
    if (h?.body?.last_seq >= seq) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for last_seq ${seq}`);
}

async function allRecords(): Promise<RecordView[]> {
  return (await get('/v1/invocations?limit=500')).body.invocations;
}

function start(): Promise<RunningProjector> {
  return startProjector({ natsUrl: nats.url, prefix: PREFIX, home, httpPort: 0, dbUrl: DB_URL });
}

beforeAll(async () => {
  await admin(`create database ${DB}`);
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  js = jetstream(nc);
  home = await mkdtemp(join(tmpdir(), 'postern-projector-pg-'));
  running = await start();
  for (const s of [A, B, C]) lastSeq = Math.max(...(await appendEvents(js, PREFIX, s.events)));
  await waitForSeq(lastSeq);
});

afterAll(async () => {
  await running?.close();
  await nc?.close();
  await nats?.stop();
  if (home) await rm(home, { recursive: true, force: true });
  await admin(`drop database if exists ${DB} with (force)`);
});

describe('projector on PostgreSQL', () => {
  it('reports the PostgreSQL read model in /healthz', async () => {
    expect((await get('/healthz')).body).toEqual({ status: 'ok', last_seq: lastSeq, db: 'postgresql' });
  });

  it('projects records, filters and stats', async () => {
    const all = await allRecords();
    expect(all.map((v) => v.invocation_id)).toEqual([C.id, B.id, A.id]);
    expect(all[2]!.outcome).toBe(Outcome.committed);
    const v = await get(`/v1/invocations?phase=${Phase.validation}&code=${Code.TARGET_NOT_ALLOWED}`);
    expect(v.body.invocations.map((r: RecordView) => r.invocation_id)).toEqual([B.id]);
    const stats = (await get('/v1/stats')).body.by_phase_outcome as Array<{ phase: string; outcome: string; count: number }>;
    expect(stats.reduce((n, x) => n + x.count, 0)).toBe(3);
    expect(stats.find((x) => x.phase === Phase.remote_execution)).toEqual({
      phase: Phase.remote_execution,
      outcome: Outcome.committed,
      count: 1,
    });
  });

  it('renders the metrics from PostgreSQL aggregates', async () => {
    const text = (await get('/metrics')).text;
    expect(text).toContain('postern_invocations_total{phase="validation",outcome="not_attempted",code="TARGET_NOT_ALLOWED"} 1\n');
    expect(text).toContain(`postern_projector_last_seq ${lastSeq}\n`);
    expect(text).toContain(`postern_stage_latency_seconds_count{type="${EventType.PREFLIGHT_VALIDATED}"} 2\n`);
    expect(text).toContain(`postern_stage_latency_seconds_bucket{type="${EventType.PREFLIGHT_VALIDATED}",le="0.25"} 2\n`);
  });

  it('records anomalies and leaves the record unchanged', async () => {
    const before = (await get(`/v1/invocations/${A.id}`)).body;
    const bad = new InvocationScript(A.id);
    bad.add(EventType.PREFLIGHT_REJECTED, { code: Code.MISSING_FIELD }, { n: A.events.length + 1 });
    const [regression] = await appendEvents(js, PREFIX, bad.events);
    lastSeq = await appendRaw(js, PREFIX, fixtureId(4), 'not json at all');
    await waitForSeq(lastSeq);
    const anomalies = (await get('/v1/anomalies')).body.anomalies;
    expect(anomalies.map((a: { seq: number; reason: string }) => [a.seq, a.reason])).toEqual([
      [regression, AnomalyReason.outcome_regression],
      [lastSeq, AnomalyReason.malformed],
    ]);
    expect((await get(`/v1/invocations/${A.id}`)).body).toEqual(before);
  });

  it('rebuilds identical records on replay', async () => {
    const before = await allRecords();
    const reply = await nc.request(subjects(PREFIX).projectorReplay, '{}', { timeout: 20_000 });
    const events = A.events.length + B.events.length + C.events.length;
    expect(reply.json()).toEqual({ events, invocations: 3, anomalies: 2, last_seq: lastSeq });
    expect(await allRecords()).toEqual(before);
  });

  it('does not apply anything twice after a restart', async () => {
    const summary = await running.projector.summary();
    await running.close();
    running = await start();
    const D = new InvocationScript(fixtureId(5)).accepted();
    lastSeq = Math.max(...(await appendEvents(js, PREFIX, D.events)));
    await waitForSeq(lastSeq);
    expect(await running.projector.summary()).toEqual({
      ...summary,
      events: summary.events + 1,
      invocations: summary.invocations + 1,
      last_seq: lastSeq,
    });
  });
});
