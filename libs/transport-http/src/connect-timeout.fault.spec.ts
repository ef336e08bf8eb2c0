import { SetupFailure, Stage } from '@postern/contract';
import { startBlackholeListener, type BlackholeListener } from '@postern/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from './connect.js';

let hole: BlackholeListener;

beforeAll(async () => {
  hole = await startBlackholeListener();
});
afterAll(async () => {
  await hole.close();
});

describe('a TCP connect that never completes', () => {
  it('is tcp_timeout at tcp_connect once the connect timeout passes', async () => {
    const started = Date.now();
    const result = await openConnection({ scheme: 'http', host: '127.0.0.1', port: hole.port }, { connectTimeoutMs: 400 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toBe(SetupFailure.tcp_timeout);
    expect(result.stage).toBe(Stage.tcp_connect);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });
});
