// Which NATS the stack talks to: the one NATS_URL names, a JetStream server
// already on 127.0.0.1:4222, or a nats-server of our own.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.mjs';
import { parseNatsAddress, probeNats, splitNatsUrls } from './nats-probe.mjs';
import { redactUrl } from './redact-url.mjs';
import { StackError } from './stack-error.mjs';
import { superviseProcess } from './supervised-process.mjs';

export const DEFAULT_NATS_PORT = 4222;
const PROBE_TIMEOUT_MS = 3_000;
const READY_TIMEOUT_MS = 15_000;

async function useConfiguredNats(natsUrl) {
  const urls = splitNatsUrls(natsUrl);
  if (urls.length === 0) throw new StackError('NATS_URL is set but empty; unset it to let npm start run a local nats-server');
  const failures = [];
  for (const url of urls) {
    const probe = await probeNats(parseNatsAddress(url), PROBE_TIMEOUT_MS);
    if (probe.reachable && probe.info.jetstream === true) return { url: natsUrl, server: null };
    failures.push(`${redactUrl(url)}: ${probe.reachable ? 'JetStream is not enabled' : probe.reason}`);
  }
  throw new StackError(
    `NATS_URL=${redactUrl(natsUrl)} is not usable (${failures.join('; ')}). ` +
      'Start that server with JetStream (nats-server -js), or unset NATS_URL and npm start runs a local nats-server.',
  );
}

async function waitUntilReady(address, server) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const probe = await probeNats(address, 1_000);
    if (probe.reachable && probe.info.jetstream === true) return;
    await sleep(100);
  }
  await server.stop(2_000);
  throw new StackError(
    `nats-server did not answer on ${address.host}:${address.port} within ${READY_TIMEOUT_MS / 1000} s. ` +
      `Its last output:\n  ${server.lastLines().join('\n  ') || '(none)'}`,
  );
}

/**
 * Resolves `{ url, server }`; `server` is our own supervised nats-server or
 * null when an existing one is used.
 */
export async function resolveNats({ env, home, natsServerBin, print, label, onGiveUp, localPort = DEFAULT_NATS_PORT }) {
  if (env.NATS_URL?.trim()) return useConfiguredNats(env.NATS_URL);
  const standard = { host: '127.0.0.1', port: localPort };
  const probe = await probeNats(standard, PROBE_TIMEOUT_MS);
  if (probe.reachable && probe.info.jetstream === true) {
    return { url: `nats://127.0.0.1:${localPort}`, server: null };
  }
  if (!natsServerBin) {
    throw new StackError('install nats-server: apt-get install nats-server, or set NATS_URL to a running NATS with JetStream');
  }
  // Something else holds 4222 (a NATS without JetStream, or not NATS at all): leave it alone.
  const port = probe.reachable === false && probe.reason === 'refused' ? localPort : await freePort();
  const address = { host: '127.0.0.1', port };
  const server = superviseProcess({
    name: 'nats',
    command: natsServerBin,
    args: ['-js', '-a', address.host, '-p', String(port), '-sd', join(home, 'nats')],
    env,
    logFile: join(home, 'logs', 'nats.log'),
    print,
    label,
    onGiveUp,
  });
  await waitUntilReady(address, server);
  return { url: `nats://${address.host}:${port}`, server };
}
