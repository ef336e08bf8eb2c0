import { CODES, OUTCOMES, PHASES, type Code, type Outcome, type Phase } from '@postern/contract';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export interface InvocationFilter {
  outcome?: Outcome;
  phase?: Phase;
  code?: Code;
  /** Only invocations whose last event is after this stream sequence. */
  afterSeq?: number;
  limit: number;
}

export interface PageQuery {
  afterSeq?: number;
  limit: number;
}

/** A query parameter that cannot be used; `field` names it for the caller. */
export interface QueryDefect {
  field: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; defect: QueryDefect };

type Query = Record<string, unknown>;

function single(query: Query, field: string): Parsed<string | undefined> {
  const v = query[field];
  if (v === undefined || v === '') return { ok: true, value: undefined };
  if (typeof v !== 'string') return { ok: false, defect: { field, message: `Give "${field}" at most once.` } };
  return { ok: true, value: v };
}

function oneOf<T extends string>(query: Query, field: string, allowed: readonly T[]): Parsed<T | undefined> {
  const v = single(query, field);
  if (!v.ok || v.value === undefined) return v as Parsed<T | undefined>;
  if (!(allowed as readonly string[]).includes(v.value)) {
    return { ok: false, defect: { field, message: `"${field}" must be one of: ${allowed.join(', ')}.` } };
  }
  return { ok: true, value: v.value as T };
}

function count(query: Query, field: string): Parsed<number | undefined> {
  const v = single(query, field);
  if (!v.ok || v.value === undefined) return v as Parsed<number | undefined>;
  if (!/^\d{1,15}$/.test(v.value)) {
    return { ok: false, defect: { field, message: `"${field}" must be a non-negative integer.` } };
  }
  return { ok: true, value: Number(v.value) };
}

/** `after_seq` and `limit` (default 50; larger values are capped at 500, 0 is refused). */
export function parsePage(query: Query): Parsed<PageQuery> {
  const afterSeq = count(query, 'after_seq');
  if (!afterSeq.ok) return afterSeq;
  const limit = count(query, 'limit');
  if (!limit.ok) return limit;
  if (limit.value === 0) return { ok: false, defect: { field: 'limit', message: '"limit" must be at least 1.' } };
  return {
    ok: true,
    value: {
      ...(afterSeq.value !== undefined ? { afterSeq: afterSeq.value } : {}),
      limit: Math.min(limit.value ?? DEFAULT_LIMIT, MAX_LIMIT),
    },
  };
}

/** The filters of `GET /v1/invocations`; unknown enum values are refused rather than matching nothing. */
export function parseInvocationFilter(query: Query): Parsed<InvocationFilter> {
  const outcome = oneOf(query, 'outcome', OUTCOMES);
  if (!outcome.ok) return outcome;
  const phase = oneOf(query, 'phase', PHASES);
  if (!phase.ok) return phase;
  const code = oneOf(query, 'code', CODES);
  if (!code.ok) return code;
  const page = parsePage(query);
  if (!page.ok) return page;
  return {
    ok: true,
    value: {
      ...page.value,
      ...(outcome.value !== undefined ? { outcome: outcome.value } : {}),
      ...(phase.value !== undefined ? { phase: phase.value } : {}),
      ...(code.value !== undefined ? { code: code.value } : {}),
    },
  };
}
