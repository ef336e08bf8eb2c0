import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import { toRecordView, type RecordView } from '@postern/contract';
import type { InvocationFilter, PageQuery } from './list-query.js';
import { stateOf } from './projection.js';
import { AnomalyEntity, EventEntity, InvocationEntity, type InvocationRow } from './read-model.entities.js';

export interface PhaseOutcomeCount {
  phase: string | null;
  outcome: string;
  count: number;
}

export interface AnomalyView {
  seq: number;
  invocation_id: string;
  type: string;
  reason: string;
  message: string;
  /** The refused event's body, or its raw text when it was not JSON. */
  event: unknown;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function view(row: InvocationRow, nowMs: number): RecordView {
  return toRecordView(stateOf(row), nowMs);
}

/** Newest first (by the stream sequence of the last event). */
export async function listInvocations(em: EntityManager, f: InvocationFilter, nowMs: number): Promise<RecordView[]> {
  const where: FilterQuery<InvocationRow> = {};
  if (f.outcome !== undefined) where.outcome = f.outcome;
  if (f.phase !== undefined) where.phase = f.phase;
  if (f.code !== undefined) where.code = f.code;
  if (f.afterSeq !== undefined) where.last_seq = { $gt: f.afterSeq };
  const rows = await em.find(InvocationEntity, where, { orderBy: { last_seq: 'desc' }, limit: f.limit });
  return rows.map((r) => view(r, nowMs));
}

export async function getInvocation(em: EntityManager, id: string, nowMs: number): Promise<RecordView | null> {
  const row = await em.findOne(InvocationEntity, { invocation_id: id });
  return row ? view(row, nowMs) : null;
}

export async function invocationExists(em: EntityManager, id: string): Promise<boolean> {
  return (await em.count(InvocationEntity, { invocation_id: id })) > 0;
}

/** The applied events of one invocation in stream order, each body with its `seq`. */
export async function listEvents(em: EntityManager, id: string): Promise<Record<string, unknown>[]> {
  const rows = await em.find(EventEntity, { invocation_id: id }, { orderBy: { seq: 'asc' } });
  return rows.map((r) => ({ ...(parseBody(r.body) as Record<string, unknown>), seq: r.seq }));
}

/** Refused messages in stream order. */
export async function listAnomalies(em: EntityManager, page: PageQuery): Promise<AnomalyView[]> {
  const where = page.afterSeq !== undefined ? { seq: { $gt: page.afterSeq } } : {};
  const rows = await em.find(AnomalyEntity, where, { orderBy: { seq: 'asc' }, limit: page.limit });
  return rows.map((r) => ({
    seq: r.seq,
    invocation_id: r.invocation_id,
    type: r.type,
    reason: r.reason,
    message: r.message,
    event: parseBody(r.body),
  }));
}

export async function countAnomalies(em: EntityManager): Promise<number> {
  return em.count(AnomalyEntity, {});
}

type Raw = Record<string, unknown>;

function rawRows(em: EntityManager, sql: string, params: unknown[] = []): Promise<Raw[]> {
  return em.getConnection().execute<Raw[]>(sql, params);
}

function nullableText(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

export async function statsByPhaseOutcome(em: EntityManager): Promise<PhaseOutcomeCount[]> {
  const rows = await rawRows(
    em,
    'select phase, outcome, count(*) as count from invocations group by phase, outcome order by phase, outcome',
  );
  return rows.map((r) => ({ phase: nullableText(r['phase']), outcome: String(r['outcome']), count: Number(r['count']) }));
}

export interface InvocationCount {
  phase: string | null;
  outcome: string;
  code: string | null;
  count: number;
}

export async function countsByPhaseOutcomeCode(em: EntityManager): Promise<InvocationCount[]> {
  const rows = await rawRows(
    em,
    'select phase, outcome, code, count(*) as count from invocations group by phase, outcome, code order by phase, outcome, code',
  );
  return rows.map((r) => ({
    phase: nullableText(r['phase']),
    outcome: String(r['outcome']),
    code: nullableText(r['code']),
    count: Number(r['count']),
  }));
}

export interface LatencyHistogram {
  type: string;
  /** Cumulative counts, one per bound of `bucketsSeconds`. */
  buckets: number[];
  count: number;
  sumSeconds: number;
}

/** Per event type, how long after the invocation's previous event it came (by the events' `at`). */
export async function stageLatency(em: EntityManager, bucketsSeconds: readonly number[]): Promise<LatencyHistogram[]> {
  const cases = bucketsSeconds
    .map((_, i) => `sum(case when latency_ms <= ? then 1 else 0 end) as b${i}`)
    .join(', ');
  const rows = await rawRows(
    em,
    `select type, count(*) as count, sum(latency_ms) as total, ${cases} from events where latency_ms is not null group by type order by type`,
    bucketsSeconds.map((s) => s * 1000),
  );
  return rows.map((r) => ({
    type: String(r['type']),
    buckets: bucketsSeconds.map((_, i) => Number(r[`b${i}`] ?? 0)),
    count: Number(r['count']),
    sumSeconds: Number(r['total'] ?? 0) / 1000,
  }));
}
