import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Code, EventType, Outcome, Phase, Retry, type StoredEvent } from '@postern/contract';
import { encodeKvKey, Journal } from '@postern/journal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, RunningStack } from './support/running-stack.js';

// The foundation as users run it: intake and projector as processes started by
// the same launcher as `npm start`, spoken to with a bare NATS client and the
// read API over HTTP.

const CREDENTIAL = {
  id: 'local-api',
  version: 1,
  type: 'http_bearer',
  scope: ['http://127.0.0.1:*'],
  approval: 'none',
  created_at: '2026-11-29T18:00:00.000Z',
};

let stack: RunningStack;
let counter = 0;
const rid = () => `e2e-${process.pid}-${++counter}`;
const command = (overrides: Record<string, unknown> = {}, http: Record<string, unknown> = {}) => ({
  client_request_id: rid(),
  caller: 'e2e',
  action: 'http.request',
  credential: CREDENTIAL.id,
  http: { method: 'POST', url: 'http://127.0.0.1:9/v1/charges', body: { json: { amount: 500 } }, ...http },
  ...overrides,
});

beforeAll(async () => {
  stack = await RunningStack.start();
  await stack.res.kv.credentials.put(encodeKvKey(CREDENTIAL.id), JSON.stringify(CREDENTIAL));
});

afterAll(async () => {
  await stack?.stop();
});

describe('raw NATS requests to a running intake', () => {
  it('answers malformed JSON with BAD_REQUEST and writes nothing', async () => {
    const before = await stack.streamMessages();
    const reply = await stack.request('actions.submit', '{"client_request_id": "x",');
    expect(reply.error).toMatchObject({
      code: Code.BAD_REQUEST,
      phase: Phase.validation,
      outcome: Outcome.not_attempted,
      retry: Retry.after_correction,
    });
    expect(reply.invocation_id).toBeUndefined();
    expect(await stack.streamMessages()).toBe(before);
  });

  const rows: Array<[string, () => Record<string, unknown>, Code, string]> = [
    ['a missing field', () => { const c: Record<string, unknown> = command(); delete c.credential; return c; }, Code.MISSING_FIELD, 'credential'],
    ['userinfo in the URL', () => command({}, { url: 'http://user:pw@127.0.0.1:9/' }), Code.INVALID_TARGET, 'http.url'],
    ['a wrong field type', () => command({ timeout_ms: 'soon' }), Code.INVALID_TARGET, 'timeout_ms'],
    ['an unsupported method', () => command({}, { method: 'TRACE' }), Code.UNSUPPORTED_ACTION, 'http.method'],
    ['an unsupported action', () => command({ action: 'ftp.get' }), Code.UNSUPPORTED_ACTION, 'action'],
    ['a target outside the policy', () => command({}, { url: 'https://api.example.com/v1' }), Code.TARGET_NOT_ALLOWED, 'http.url'],
    ['an unknown credential', () => command({ credential: 'prod-root-token' }), Code.UNKNOWN_CREDENTIAL, 'credential'],
    ['an Authorization header', () => command({}, { headers: { Authorization: 'Bearer canary-e2e-4f1d' } }), Code.FORBIDDEN_HEADER, 'http.headers.authorization'],
    ['a body over the limit', () => command({}, { body: { text: 'x'.repeat(300 * 1024) } }), Code.PAYLOAD_LIMIT, 'http.body'],
    ['an idempotency key without a contract', () => command({ idempotency_key: 'k-1' }), Code.IDEMPOTENCY_UNSUPPORTED, 'idempotency_key'],
  ];

  it.each(rows)('records %s as a resolved validation record', async (_name, build, code, field) => {
    const reply = await stack.request('actions.submit', build());
    expect(reply.status).toBe('resolved');
    expect(reply.outcome).toBe(Outcome.not_attempted);
    expect(reply.error).toMatchObject({
      code,
      field,
      phase: Phase.validation,
      outcome: Outcome.not_attempted,
      retry: Retry.after_correction,
    });
    expect(reply.evidence.dispatch_started).toBe(false);
    const events = await new Journal(stack.res, stack.prefix, 'e2e-reader').read(reply.invocation_id);
    expect(events.map((e) => e.type)).toEqual([EventType.ACTION_ACCEPTED, EventType.PREFLIGHT_REJECTED]);
  });

  it('never echoes the name of an unknown credential', async () => {
    const reply = await stack.request('actions.submit', command({ credential: 'prod-root-token' }));
    expect(JSON.stringify(reply.error)).not.toContain('prod-root-token');
  });

  it('accepts a valid command and the read API shows it with its events', async () => {
    const submitted = command();
    const reply = await stack.request('actions.submit', submitted);
    expect(reply).toMatchObject({
      client_request_id: submitted.client_request_id,
      status: 'pending',
      outcome: Outcome.not_attempted,
      error: null,
      cancelled: false,
    });
    expect(reply.evidence.request_fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(reply.evidence.credential).toMatchObject({ id: CREDENTIAL.id, version: 1, injection: 'http_bearer' });

    const view = await stack.projected(reply.invocation_id, (v) => v.journal.events === 2);
    expect(view.invocation_id).toBe(reply.invocation_id);
    expect(view.evidence.request_fingerprint).toBe(reply.evidence.request_fingerprint);
    const events = await stack.api(`/v1/invocations/${reply.invocation_id}/events`);
    expect(events.status).toBe(200);
    expect(events.body.events.map((e: StoredEvent) => e.type)).toEqual([
      EventType.ACTION_ACCEPTED,
      EventType.PREFLIGHT_VALIDATED,
    ]);

    const again = await stack.request('actions.submit', submitted);
    expect(again.invocation_id).toBe(reply.invocation_id);
    const got = await stack.request('actions.get', { invocation_id: reply.invocation_id });
    expect(got.journal).toEqual(reply.journal);
  });

  it('cancels before dispatch: not_attempted, CALLER_CANCELLED, retry never', async () => {
    const reply = await stack.request('actions.submit', command());
    const cancelled = await stack.request('actions.cancel', { invocation_id: reply.invocation_id });
    expect(cancelled).toMatchObject({ status: 'resolved', outcome: Outcome.not_attempted });
    expect(cancelled.error).toMatchObject({ code: Code.CALLER_CANCELLED, retry: Retry.never });
    await stack.projected(reply.invocation_id, (v) => v.error?.code === Code.CALLER_CANCELLED);
  });

  it('keeps the Authorization value of a refused command out of the journal and the read model', async () => {
    const reply = await stack.request('actions.submit', command({}, { headers: { authorization: 'Bearer canary-e2e-4f1d' } }));
    const view = await stack.projected(reply.invocation_id);
    const events = await stack.api(`/v1/invocations/${reply.invocation_id}/events`);
    for (const text of [JSON.stringify(reply), JSON.stringify(view), JSON.stringify(events.body)]) {
      expect(text).not.toContain('canary-e2e-4f1d');
    }
  });
});

describe('the projection refuses impossible histories', () => {
  it('shows a hand-appended regression of a committed invocation under /v1/anomalies and changes nothing', async () => {
    const fixture = JSON.parse(
      readFileSync(join(REPO_ROOT, 'libs/contract/src/fixtures/http-committed.json'), 'utf8'),
    ) as { events: StoredEvent[] };
    const id = `act_01JDE2E${String(Date.now()).slice(-10).padStart(19, '0')}`;
    const journal = new Journal(stack.res, stack.prefix, 'e2e-hand');
    let last = 0;
    for (const { seq: _seq, ...event } of fixture.events) {
      const appended = await journal.append({ ...event, invocation_id: id }, last);
      expect(appended.status).toBe('appended');
      if (appended.status === 'appended') last = appended.seq;
    }
    const committed = await stack.projected(id, (v) => v.journal.events === fixture.events.length);
    expect(committed.outcome).toBe(Outcome.committed);

    const regression = await journal.append(
      {
        type: EventType.CONNECTION_FAILED,
        invocation_id: id,
        n: fixture.events.length + 1,
        attempt: 2,
        generation: 2,
        at: new Date().toISOString(),
        source: 'transport_observed',
        service: 'e2e-hand',
        data: { connect_try: 1, stage: 'tcp_connect', code: Code.CONNECT_REFUSED, retry_rule: Retry.backoff, outcome: Outcome.not_attempted },
      },
      last,
    );
    expect(regression.status).toBe('appended');

    const deadline = Date.now() + 15_000;
    let anomaly: any;
    for (let i = 0; i < 150 && !anomaly && Date.now() < deadline; i++) {
      const { body } = await stack.api('/v1/anomalies');
      anomaly = body.anomalies.find((a: any) => a.invocation_id === id);
      if (!anomaly) await new Promise((r) => setTimeout(r, 100));
    }
    expect(anomaly).toMatchObject({ invocation_id: id, type: EventType.CONNECTION_FAILED });
    const after = await stack.api(`/v1/invocations/${id}`);
    expect(after.body.outcome).toBe(Outcome.committed);
    expect(after.body.journal).toEqual(committed.journal);
  });
});

describe('rebuilding the read model', () => {
  it('`postern replay` after deleting the SQLite file rebuilds the same views', async () => {
    const before = await stack.api('/v1/invocations?limit=500');
    expect(before.body.invocations.length).toBeGreaterThan(5);
    const anomaliesBefore = await stack.api('/v1/anomalies');

    const db = join(stack.home, 'read-model.sqlite');
    for (const suffix of ['', '-wal', '-shm']) await rm(`${db}${suffix}`, { force: true });

    const replay = await stack.cli(['replay']);
    expect(replay.stderr).toMatch(/replay/);
    expect(replay.code).toBe(0);

    // The rebuilt file is on disk: a projector started afresh serves the same views from it.
    expect(existsSync(db)).toBe(true);
    const file = new Database(db, { readonly: true });
    const rows = file.prepare('select count(*) as n from invocations').get() as { n: number };
    file.close();
    expect(rows.n).toBe(before.body.invocations.length);
    await stack.restartServices();
    const after = await stack.api('/v1/invocations?limit=500');
    expect(after.body).toEqual(before.body);
    expect((await stack.api('/v1/anomalies')).body).toEqual(anomaliesBefore.body);
  });
});
