import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code } from '@postern/contract';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { startProjector, type RunningProjector } from './projector-app.js';

const TOKEN = 'test-token-4f1c9a';

let nats: NatsServerHandle;
let home: string;
let running: RunningProjector;

function url(path: string): string {
  return `http://127.0.0.1:${running.port}${path}`;
}

beforeAll(async () => {
  nats = await startNatsServer();
  home = await mkdtemp(join(tmpdir(), 'postern-projector-auth-'));
  // The test binds to loopback explicitly; that a token alone means all interfaces is checked by bindHost's unit test.
  running = await startProjector({
    natsUrl: nats.url,
    prefix: 'authtest',
    home,
    httpPort: 0,
    apiToken: TOKEN,
    httpHost: '127.0.0.1',
  });
});

afterAll(async () => {
  await running?.close();
  await nats?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('bearer token on the read API', () => {
  it.each(['/v1/invocations', '/v1/invocations/act_00000000000000000000000001', '/v1/stats', '/v1/anomalies', '/metrics'])(
    'refuses %s without a token, with a wrong one and with another scheme',
    async (path) => {
      const none = await fetch(url(path));
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      const body = await none.text();
      expect(body).not.toContain(TOKEN);
      expect(JSON.parse(body)).toHaveProperty('error.message');
      expect((await fetch(url(path), { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(401);
      expect((await fetch(url(path), { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
      expect((await fetch(url(path), { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(401);
    },
  );

  it('serves the routes with the right token', async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const list = await fetch(url('/v1/invocations'), { headers });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ invocations: [] });
    expect((await fetch(url('/metrics'), { headers })).status).toBe(200);
    expect((await fetch(url('/v1/stats'), { headers })).status).toBe(200);
    const missing = await fetch(url('/v1/invocations/act_00000000000000000000000001'), { headers });
    expect(missing.status).toBe(404);
    const route = await fetch(url('/v1/nothing-here'), { headers });
    expect(route.status).toBe(404);
    expect(((await route.json()) as { error: { code: string } }).error.code).toBe(Code.NOT_FOUND);
  });

  it('keeps /healthz open', async () => {
    const h = await fetch(url('/healthz'));
    expect(h.status).toBe(200);
    expect(await h.json()).toEqual({ status: 'ok', last_seq: 0, db: 'sqlite' });
  });
});
