// The launcher against a real nats-server and throwaway service apps on
// loopback: NATS reuse and start, start order, logs, restart limit, shutdown.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './free-port.mjs';
import { findNatsServerBinary } from './nats-server-binary.mjs';
import { probeNats } from './nats-probe.mjs';
import { startStack } from './stack.mjs';
import { StackError } from './stack-error.mjs';

const natsServerBin = findNatsServerBinary();
const { NATS_URL: _ignored, ...baseEnv } = process.env;

const STEADY = `
console.log('up ' + process.env.NATS_URL + ' ' + process.env.POSTERN_HOME);
process.on('SIGTERM', () => { console.log('bye'); process.exit(0); });
setInterval(() => {}, 1000);
`;
const CRASHING = `console.error('boom'); process.exit(3);`;
const STUBBORN = `
process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
console.log('up');
setInterval(() => {}, 1000);
`;

const cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'postern-stack-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A checkout with the given apps; `null` source means present but not built. */
function fakeRepo(apps) {
  const root = tempDir();
  for (const [name, source] of Object.entries(apps)) {
    mkdirSync(join(root, 'apps', name, 'dist'), { recursive: true });
    writeFileSync(join(root, 'apps', name, 'package.json'), '{}');
    if (source !== null) writeFileSync(join(root, 'apps', name, 'dist', 'main.js'), source);
  }
  return root;
}

async function start(options) {
  const lines = [];
  const stack = await startStack({ home: tempDir(), env: baseEnv, log: (line) => lines.push(line), natsServerBin, ...options });
  cleanups.push(() => stack.stop());
  return { stack, lines };
}

async function until(predicate, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (predicate()) return;
    await new Promise((wake) => setTimeout(wake, 50));
  }
  throw new Error('condition not met in time');
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startStack', () => {
  it.skipIf(!natsServerBin)('starts its own nats-server when none answers, then the services in order', async () => {
    const root = fakeRepo({ projector: STEADY, credential: STEADY, intake: STEADY });
    const port = await freePort();
    const { stack, lines } = await start({ root, localNatsPort: port });

    expect(stack.natsUrl).toBe(`nats://127.0.0.1:${port}`);
    expect(stack.ownNats).toBe(true);
    expect(stack.services).toEqual(['credential', 'intake', 'projector']);
    await until(() => lines.filter((line) => line.includes(' up ')).length === 3);
    expect(lines.find((line) => line.startsWith('[credential]'))).toContain(`up nats://127.0.0.1:${port} ${stack.home}`);
    expect(readFileSync(join(stack.home, 'logs', 'intake.log'), 'utf8')).toContain(`up nats://127.0.0.1:${port}`);

    await stack.stop();
    expect(lines.filter((line) => line.endsWith('bye'))).toHaveLength(3);
    expect((await probeNats({ host: '127.0.0.1', port }, 1_000)).reachable).toBe(false);
  });

  it.skipIf(!natsServerBin)('reuses a JetStream server already on the local port', async () => {
    const port = await freePort();
    const first = await start({ root: fakeRepo({ intake: STEADY }), localNatsPort: port });
    const second = await start({ root: fakeRepo({ intake: STEADY }), localNatsPort: port });
    expect(first.stack.ownNats).toBe(true);
    expect(second.stack.ownNats).toBe(false);
    expect(second.stack.natsUrl).toBe(`nats://127.0.0.1:${port}`);
  });

  it.skipIf(!natsServerBin)('leaves a port held by something else alone and picks a free one', async () => {
    const squatter = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise((ready) => squatter.listen(0, '127.0.0.1', ready));
    cleanups.push(() => new Promise((done) => squatter.close(done)));
    const taken = squatter.address().port;
    const { stack } = await start({ root: fakeRepo({ intake: STEADY }), localNatsPort: taken });
    expect(stack.ownNats).toBe(true);
    expect(stack.natsUrl).not.toBe(`nats://127.0.0.1:${taken}`);
    const port = Number(new URL(stack.natsUrl).port);
    expect((await probeNats({ host: '127.0.0.1', port })).info?.jetstream).toBe(true);
  });

  it('refuses an unreachable NATS_URL with the next step', async () => {
    const port = await freePort();
    const env = { ...baseEnv, NATS_URL: `nats://user:secret@127.0.0.1:${port}` };
    const failure = startStack({ root: fakeRepo({ intake: STEADY }), home: tempDir(), env, log: () => {} });
    await expect(failure).rejects.toThrow(StackError);
    await expect(failure).rejects.toThrow(/refused.*unset NATS_URL/s);
    await expect(failure).rejects.not.toThrow(/secret/);
  });

  it('names the service apps that are not built', async () => {
    const failure = startStack({ root: fakeRepo({ intake: STEADY, projector: null }), home: tempDir(), env: baseEnv, log: () => {} });
    await expect(failure).rejects.toThrow(/not built: apps\/projector\/dist\/main\.js.*npm run build/s);
  });

  it.skipIf(!natsServerBin)('restarts a crashing service, then gives up and stops everything', async () => {
    const root = fakeRepo({ intake: STEADY, projector: CRASHING });
    const { stack, lines } = await start({ root, localNatsPort: await freePort(), maxRestartsPerMinute: 2 });
    const outcome = await Promise.race([stack.exited, new Promise((wake) => setTimeout(wake, 10_000, 'timeout'))]);
    expect(outcome).toEqual({ code: 1, reason: 'projector exited more than 2 times within a minute' });
    expect(lines.filter((line) => line.startsWith('[projector]') && line.includes('restarting in'))).toHaveLength(2);
    expect(lines).toContain('  boom');
    expect(lines.some((line) => line.startsWith('[intake]') && line.endsWith('bye'))).toBe(true);
  });

  it.skipIf(!natsServerBin)('kills a service that ignores SIGTERM once the grace period ends', async () => {
    const root = fakeRepo({ intake: STUBBORN });
    const { stack, lines } = await start({ root, localNatsPort: await freePort(), graceMs: 300 });
    await until(() => lines.some((line) => line.endsWith('up')));
    const pid = Number(readFileSync(join(stack.home, 'logs', 'intake.log'), 'utf8').match(/pid (\d+)/)?.[1]);
    expect(isAlive(pid)).toBe(true);
    await stack.stop();
    expect(lines.some((line) => line.includes('did not stop within 300 ms'))).toBe(true);
    expect(isAlive(pid)).toBe(false);
  });
});
