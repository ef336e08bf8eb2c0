import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { encodeKvKey } from '@postern/journal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningStack } from './support/running-stack.js';

// The read model on the local PostgreSQL (127.0.0.1:5432, trust auth): a
// database of this file's own, dropped afterwards.

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `postern_e2e_${randomBytes(4).toString('hex')}`;
const dbUrl = `postgres://postgres@127.0.0.1:5432/${database}`;
let stack: RunningStack;

async function sql(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await sql(ADMIN_URL, `CREATE DATABASE ${database}`);
  stack = await RunningStack.start({ prefix: 'e2epg', dbUrl });
  await stack.res.kv.credentials.put(
    encodeKvKey('local-api'),
    JSON.stringify({ id: 'local-api', version: 1, type: 'http_bearer', scope: ['http://127.0.0.1:*'], approval: 'none', created_at: '2026-11-29T18:00:00.000Z' }),
  );
});

afterAll(async () => {
  await stack?.stop();
  await sql(ADMIN_URL, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

describe('the read model on PostgreSQL', () => {
  it('`postern replay` rebuilds the same views after the tables were emptied', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const reply = await stack.request('actions.submit', {
        client_request_id: `pg-${i}-${database}`,
        action: 'http.request',
        credential: i === 3 ? 'missing-credential' : 'local-api',
        http: { method: 'GET', url: `http://127.0.0.1:9/items/${i}` },
      });
      ids.push(reply.invocation_id);
    }
    for (const id of ids) await stack.projected(id, (v) => v.journal.events === 2);
    const before = await stack.api('/v1/invocations?limit=500');
    expect(before.body.invocations).toHaveLength(4);

    await sql(dbUrl, 'DELETE FROM invocations; DELETE FROM events;');
    expect((await stack.api(`/v1/invocations/${ids[0]}`)).status).toBe(404);

    const replay = await stack.cli(['replay']);
    expect(replay.code).toBe(0);
    const rows = await sql(dbUrl, 'SELECT count(*)::int AS n FROM invocations');
    expect(rows.rows[0].n).toBe(4);
    const after = await stack.api('/v1/invocations?limit=500');
    expect(after.body).toEqual(before.body);
  });
});
