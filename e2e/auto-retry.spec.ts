import { Code, EventType, Outcome, Phase, Retry, Verdict, type StoredEvent } from '@postern/contract';
import { Journal } from '@postern/journal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpFixture } from './support/http-fixture.js';

// `dispatch.auto_retry: true` through the whole stack (CONTRACT.md section 6):
// after dispatch the broker retries only on a RETRY_* verdict of decide(),
// within `dispatch.budget` (3 here), and a record whose budget is spent says
// RETRY_BUDGET_EXHAUSTED with the last attempt's evidence.

const BUDGET = 3;

let f: HttpFixture;
let n = 0;

beforeAll(async () => {
  f = await HttpFixture.start({ prefix: 'e2eretry', autoRetry: true, budget: BUDGET });
}, 90_000);

afterAll(async () => {
  await f?.stop();
});

function command(url: string, options: { method?: string; key?: string } = {}) {
  const method = options.method ?? 'POST';
  return {
    client_request_id: `retry-${process.pid}-${++n}`,
    caller: 'e2e',
    action: 'http.request',
    credential: 'local-api',
    http: { method, url, ...(method === 'GET' ? {} : { body: { json: { amount: 500, n } } }) },
    ...(options.key ? { idempotency_key: options.key } : {}),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * One `actions.await`: it answers only once no automatic retry is due any
 * more, so the record it returns is the broker's last word.
 */
async function settled(id: string): Promise<any> {
  const view = await f.awaitResolved(id, 30_000);
  expect(view.status, JSON.stringify(view)).toBe('resolved');
  return view;
}

async function submit(cmd: Record<string, unknown>): Promise<any> {
  const submitted = await f.stack.request('actions.submit', cmd);
  expect(submitted.invocation_id, JSON.stringify(submitted)).toMatch(/^act_/);
  return settled(submitted.invocation_id);
}

function historyOf(id: string): Promise<StoredEvent[]> {
  return new Journal(f.stack.res, f.stack.prefix, 'e2e-reader').read(id);
}

const ofType = (history: StoredEvent[], type: EventType) => history.filter((e) => e.type === type);

function expectExhausted(view: any, outcome: Outcome) {
  expect(view.status, JSON.stringify(view)).toBe('resolved');
  expect(view.outcome).toBe(outcome);
  expect(view.error, JSON.stringify(view)).toMatchObject({
    code: Code.RETRY_BUDGET_EXHAUSTED,
    phase: Phase.remote_execution,
    outcome,
    retry: Retry.reconcile,
  });
  expect(view.evidence).toMatchObject({ attempt: BUDGET, dispatch_started: true, budget_left: 0 });
  expect(view.attempts.filter((a: any) => a.code !== Code.CONNECT_REFUSED).map((a: any) => a.attempt)).toEqual([1, 2, 3]);
}

describe('auto_retry: a known idempotent request', () => {
  it('a GET whose connection closes after the request is dispatched three times, then RETRY_BUDGET_EXHAUSTED', async () => {
    const before = f.plain.effects('/close-after-request');
    const view = await submit(command(`${f.plain.origin}/close-after-request`, { method: 'GET' }));
    expectExhausted(view, Outcome.unknown);
    expect(view.evidence).toMatchObject({ request_headers_sent: true, request_complete: true });
    expect(view.attempts.map((a: any) => [a.attempt, a.outcome, a.code])).toEqual([
      [1, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN],
      [2, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN],
      [3, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN],
    ]);
    expect(f.plain.effects('/close-after-request') - before).toBe(BUDGET);
    const history = await historyOf(view.invocation_id);
    expect(ofType(history, EventType.DISPATCH_STARTED).map((e) => [e.attempt, e.generation])).toEqual([
      [1, expect.any(Number)],
      [2, expect.any(Number)],
      [3, expect.any(Number)],
    ]);
    const generations = ofType(history, EventType.DISPATCH_STARTED).map((e) => e.generation);
    expect(new Set(generations).size).toBe(BUDGET);
    const retries = ofType(history, EventType.RETRY_SCHEDULED);
    expect(retries.map((e) => [e.attempt, e.data['reason'], e.data['unsafe']])).toEqual([
      [1, Verdict.RETRY_NEW_ATTEMPT, false],
      [2, Verdict.RETRY_NEW_ATTEMPT, false],
    ]);
    // Each retry waited for its time before the next dispatch.
    for (const retry of retries) {
      const next = history.find((e) => e.type === EventType.DISPATCH_STARTED && e.attempt === retry.attempt + 1);
      expect(Date.parse(String(next?.at))).toBeGreaterThanOrEqual(Date.parse(String(retry.data['not_before'])));
    }
  });

  it('a 429 with Retry-After: 1 comes again no earlier than a second later', async () => {
    const before = f.plain.effects('/status/429');
    const view = await submit(command(`${f.plain.origin}/status/429?retry-after=1`, { method: 'GET' }));
    expectExhausted(view, Outcome.rejected);
    expect(view.error.retry_after_ms).toBe(1000);
    expect(view.evidence.response_status).toBe(429);
    expect(f.plain.effects('/status/429') - before).toBe(BUDGET);
    const history = await historyOf(view.invocation_id);
    const starts = ofType(history, EventType.DISPATCH_STARTED).map((e) => Date.parse(e.at));
    const answers = ofType(history, EventType.REMOTE_RESPONSE_COMPLETE).map((e) => Date.parse(e.at));
    expect(starts).toHaveLength(BUDGET);
    // 1 s after the 429 was read, less a little for clock rounding between events.
    for (let i = 1; i < BUDGET; i++) {
      expect(starts[i]! - answers[i - 1]!).toBeGreaterThanOrEqual(950);
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(950);
    }
    expect(ofType(history, EventType.RETRY_SCHEDULED).map((e) => e.data['reason'])).toEqual([Verdict.RETRY_WHEN_ALLOWED, Verdict.RETRY_WHEN_ALLOWED]);
  });
});

describe('auto_retry: an unsafe request', () => {
  it('a POST with no idempotency is never sent again on its own: one dispatch, REMOTE_OUTCOME_UNKNOWN, reconcile', async () => {
    const before = f.plain.effects('/close-after-request');
    const view = await submit(command(`${f.plain.origin}/close-after-request`));
    expect(view.error, JSON.stringify(view)).toMatchObject({
      code: Code.REMOTE_OUTCOME_UNKNOWN,
      phase: Phase.remote_execution,
      outcome: Outcome.unknown,
      retry: Retry.reconcile,
    });
    expect(view.evidence).toMatchObject({ attempt: 1, dispatch_started: true, budget_left: BUDGET - 1 });
    // Long enough for a retry that should not happen to have been scheduled and sent.
    await sleep(1_000);
    const history = await historyOf(view.invocation_id);
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(ofType(history, EventType.RETRY_SCHEDULED)).toHaveLength(0);
    expect(f.plain.effects('/close-after-request') - before).toBe(1);
  });

  it('a keyed POST under a contract is retried with the same Idempotency-Key, then RETRY_BUDGET_EXHAUSTED', async () => {
    const key = `auto-${process.pid}-${Date.now()}`;
    const seen = f.contract.requests.length;
    const view = await submit(command(`${f.contract.origin}/close-after-request`, { key }));
    expectExhausted(view, Outcome.unknown);
    const sent = f.contract.requests.slice(seen).filter((r) => r.pathname === '/close-after-request');
    expect(sent).toHaveLength(BUDGET);
    const keys = sent.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBeTruthy();
    expect(keys).toEqual([keys[0], keys[0], keys[0]]);
    expect(keys[0]).toBe(view.evidence.idempotency.key);
    const bodies = sent.map((r) => r.body.toString('base64'));
    expect(new Set(bodies).size).toBe(1);
    const history = await historyOf(view.invocation_id);
    expect(ofType(history, EventType.RETRY_SCHEDULED).map((e) => e.data['reason'])).toEqual([Verdict.RETRY_SAME_KEY, Verdict.RETRY_SAME_KEY]);
  });
});
