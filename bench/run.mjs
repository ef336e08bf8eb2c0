#!/usr/bin/env node
// `npm run bench`: the whole broker as processes on this machine, measured
// beside baselines taken in the same run (DESIGN section 8). Only ratios taken
// side by side mean anything: the absolute numbers belong to this machine and
// this moment.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureBuild } from '../infra/scripts/bootstrap.mjs';
import { repoRoot } from '../infra/scripts/repo-root.mjs';
import { startStack } from '../infra/scripts/stack.mjs';
import { BenchUsageError, parseBenchArgs, USAGE } from './args.mjs';
import { childProcesses, memoryOf } from './peak-rss.mjs';
import { percentile } from './percentile.mjs';

const PREFIX = 'bench';
const CREDENTIAL_ID = 'bench';
const RAW_STREAM = 'BENCH_RAW';
const RAW_SUBJECT = 'benchraw';
const REQUEST_TIMEOUT_MS = 10_000;
const STACK_READY_MS = 30_000;
const REPLAY_TIMEOUT_MS = 60_000;
const CLI = join(repoRoot, 'apps', 'cli', 'bin', 'postern.js');

const progress = (line) => process.stderr.write(`bench: ${line}\n`);
const sleep = (ms) => new Promise((wake) => setTimeout(wake, ms));
const round = (value, digits = 1) => (value === null || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));

let options;
try {
  options = parseBenchArgs(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof BenchUsageError)) throw err;
  process.stderr.write(`bench: ${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

// Built first: the workspace packages below resolve to their dist/.
await ensureBuild({ log: progress });
const { startHostileHttpServer, startNatsServer, freePort } = await import('@postern/testkit');
const { connectNats, ensureJournal } = await import('@postern/journal');
const { subjects, Status, Outcome } = await import('@postern/contract');
const { StorageType } = await import('@nats-io/jetstream');
const { Agent, request: undiciRequest } = await import('undici');

/** Everything to undo, newest first; each step runs even when an earlier one fails. */
const cleanups = [];
let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const { name, run } = cleanups.pop();
      try {
        await run();
      } catch (err) {
        progress(`cleanup of ${name} failed: ${err instanceof Error ? err.message : err}`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    progress(`${signal}: stopping everything`);
    cleanup().finally(() => process.exit(130));
  });
}

/** Calls `fn` until it resolves, for at most `attempts` tries and `ms` milliseconds. */
async function until(what, fn, { attempts, ms, pauseMs }) {
  const deadline = Date.now() + ms;
  let last;
  for (let i = 0; i < attempts && Date.now() < deadline; i++) {
    try {
      return await fn();
    } catch (err) {
      last = err;
      await sleep(pauseMs);
    }
  }
  throw new Error(`${what} did not succeed within ${ms} ms: ${last instanceof Error ? last.message : last}`, { cause: last });
}

function runCli(args, env, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: repoRoot,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), REPLAY_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/**
 * Runs `total` jobs with `concurrency` in flight, stopping new ones once
 * `maxMs` has passed. Returns the per-job results and the wall time.
 */
async function pool(total, concurrency, maxMs, job, label) {
  const results = [];
  let next = 0;
  const started = performance.now();
  const stopAt = started + maxMs;
  const ticker = setInterval(() => progress(`${label}: ${results.length}/${total}`), 1_000);
  try {
    const worker = async () => {
      while (next < total && performance.now() < stopAt) {
        const index = next++;
        results.push(await job(index));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  } finally {
    clearInterval(ticker);
  }
  return { results, seconds: (performance.now() - started) / 1000 };
}

async function main() {
  const started = performance.now();
  const log = [];
  const remember = (line) => {
    log.push(line);
    if (log.length > 200) log.shift();
  };

  progress('starting nats-server, target and stack');
  const nats = await startNatsServer();
  cleanups.push({ name: 'nats-server', run: () => nats.stop() });
  const target = await startHostileHttpServer({ keepRequests: 1 });
  cleanups.push({ name: 'target', run: () => target.close() });
  const home = await mkdtemp(join(tmpdir(), 'postern-bench-'));
  cleanups.push({ name: 'temp home', run: () => rm(home, { recursive: true, force: true }) });
  await writeFile(
    join(home, 'postern.yaml'),
    'targets:\n  - match: "http://127.0.0.1:*"\n    retry_safe_methods: [GET, HEAD]\n',
  );

  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? home,
    NATS_URL: nats.url,
    POSTERN_PREFIX: PREFIX,
    POSTERN_HOME: home,
    POSTERN_HTTP_PORT: String(await freePort()),
    POSTERN_VAULT_PASSPHRASE: `bench-${randomBytes(16).toString('hex')}`,
  };
  progress(`nats-server ${nats.url}, target ${target.origin}, home ${home}`);
  const stack = await startStack({ home, env, log: remember, graceMs: 5_000 });
  cleanups.push({ name: 'stack', run: () => stack.stop() });

  const nc = await connectNats({ servers: nats.url, name: 'bench' });
  cleanups.push({ name: 'bench NATS connection', run: () => nc.close() });
  const res = await ensureJournal(nc, PREFIX);
  const subject = subjects(PREFIX);
  const ask = async (subj, body, timeoutMs = REQUEST_TIMEOUT_MS) => {
    const msg = await nc.request(subj, JSON.stringify(body), { timeout: timeoutMs });
    return JSON.parse(new TextDecoder().decode(msg.data));
  };

  try {
    await until('the stack', async () => {
      const health = await fetch(`${stack.apiUrl}/healthz`);
      if (!health.ok) throw new Error(`healthz answered ${health.status}`);
      await ask(subject.actionsGet, { invocation_id: 'act_probe' }, 1_000);
    }, { attempts: 300, ms: STACK_READY_MS, pauseMs: 100 });

    progress('storing the bench credential through the CLI');
    // The credential service may still be opening the vault right after start.
    await until('credential put', async () => {
      const put = await runCli(
        ['credential', 'put', CREDENTIAL_ID, '--type', 'http_bearer', '--scope', 'http://127.0.0.1:*'],
        env,
        `bench-token-${randomBytes(8).toString('hex')}\n`,
      );
      if (put.code !== 0) throw new Error(`exit ${put.code}: ${put.stderr.trim() || put.stdout.trim()}`);
    }, { attempts: 40, ms: 20_000, pauseMs: 300 });
    // Intake reads credential metadata from KV.
    await until('credential metadata in KV', async () => {
      const entry = await res.kv.credentials.get(CREDENTIAL_ID);
      if (!entry?.value?.length) throw new Error('not there yet');
    }, { attempts: 100, ms: 10_000, pauseMs: 100 });
  } catch (err) {
    process.stderr.write(`bench: the stack's last lines:\n  ${log.slice(-30).join('\n  ')}\n`);
    throw err;
  }

  const targetUrl = `${target.origin}/status/200`;
  const runId = randomBytes(4).toString('hex');
  const failures = new Map();

  /** One brokered call: submit, then actions.await until resolved. Milliseconds, or null when it failed. */
  const brokered = async (tag) => {
    const t0 = performance.now();
    const command = {
      client_request_id: `bench-${runId}-${tag}`,
      action: 'http.request',
      credential: CREDENTIAL_ID,
      http: { method: 'GET', url: targetUrl },
    };
    let view = await ask(subject.actionsSubmit, command);
    if (typeof view?.invocation_id === 'string' && view.status !== Status.resolved) {
      view = await ask(subject.actionsAwait, { invocation_id: view.invocation_id, timeout_ms: options.awaitMs }, options.awaitMs + 5_000);
    }
    const ms = performance.now() - t0;
    if (view?.status === Status.resolved && view.outcome === Outcome.committed && view.evidence?.response_status === 200) return ms;
    const why = view?.error?.code ?? (view?.status ? `${view.status}/${view.outcome}` : 'no record view');
    failures.set(why, (failures.get(why) ?? 0) + 1);
    return null;
  };
  const safely = (fn) => (i) => fn(i).catch((err) => {
    const why = err instanceof Error ? err.message : String(err);
    failures.set(why, (failures.get(why) ?? 0) + 1);
    return null;
  });

  const agent = new Agent({ connections: options.concurrency });
  cleanups.push({ name: 'undici agent', run: () => agent.close() });
  const direct = async () => {
    const t0 = performance.now();
    const reply = await undiciRequest(targetUrl, { method: 'GET', dispatcher: agent });
    await reply.body.dump();
    if (reply.statusCode !== 200) throw new Error(`direct call answered ${reply.statusCode}`);
    return performance.now() - t0;
  };

  const maxMs = options.maxPhaseSeconds * 1000;
  progress(`warm-up: ${options.warmup} brokered calls, ${options.warmup} direct`);
  await pool(options.warmup, Math.min(options.concurrency, options.warmup), maxMs, safely((i) => brokered(`warm-${i}`)), 'warm-up');
  await pool(options.warmup, 1, maxMs, direct, 'direct warm-up');
  const warmFailures = [...failures.values()].reduce((a, b) => a + b, 0);
  if (warmFailures === options.warmup) {
    throw new Error(`every warm-up call failed (${[...failures.keys()].join(', ')}); the stack's last lines:\n  ${log.slice(-20).join('\n  ')}`);
  }
  failures.clear();

  // Throughput: the journal's message count before and after gives events per action.
  const streamMessages = async () => (await res.jsm.streams.info(res.names.stream)).state;
  const before = await streamMessages();
  progress(`throughput: ${options.actions} brokered actions, ${options.concurrency} in flight`);
  const load = await pool(options.actions, options.concurrency, maxMs, safely((i) => brokered(`load-${i}`)), 'throughput');
  const loadOk = load.results.filter((ms) => ms !== null);
  // Delivery appends after the await answers: wait until the journal is quiet (bounded).
  let after = await streamMessages();
  for (let i = 0; i < 50; i++) {
    await sleep(200);
    const now = await streamMessages();
    if (now.messages === after.messages) break;
    after = now;
  }
  const journalEvents = after.messages - before.messages;
  const actionsPerS = loadOk.length / load.seconds;
  const eventsPerAction = load.results.length > 0 ? journalEvents / load.results.length : null;
  const bytesPerEvent = journalEvents > 0 ? Math.round((after.bytes - before.bytes) / journalEvents) : 256;

  // Latency: one call at a time, so the numbers are the cost of a call, not of a queue.
  progress(`latency: ${options.latencySamples} brokered calls one at a time`);
  const lat = await pool(options.latencySamples, 1, maxMs, safely((i) => brokered(`lat-${i}`)), 'brokered latency');
  const latOk = lat.results.filter((ms) => ms !== null);
  progress(`latency: ${options.latencySamples} direct undici calls one at a time`);
  const directLat = await pool(options.latencySamples, 1, maxMs, direct, 'direct latency');

  // Raw JetStream: the same server, same storage, same message size, same concurrency, same duration.
  await res.jsm.streams.add({ name: RAW_STREAM, subjects: [`${RAW_SUBJECT}.>`], storage: StorageType.File });
  cleanups.push({ name: 'scratch stream', run: () => res.jsm.streams.delete(RAW_STREAM) });
  const payload = randomBytes(bytesPerEvent);
  const rawSeconds = Math.max(load.seconds, 1);
  progress(`raw JetStream publishes: ${rawSeconds.toFixed(1)} s, ${options.concurrency} in flight, ${bytesPerEvent} B each`);
  let rawCount = 0;
  const rawStarted = performance.now();
  const rawStop = rawStarted + rawSeconds * 1000;
  // The count bound: far more than any 2-core machine publishes in that time.
  const rawMax = 5_000_000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, w) => {
      while (performance.now() < rawStop && rawCount < rawMax) {
        await res.js.publish(`${RAW_SUBJECT}.${w}`, payload);
        rawCount++;
      }
    }),
  );
  const rawPerS = rawCount / ((performance.now() - rawStarted) / 1000);

  // Peak memory, read before the replay so it reflects the brokered load.
  const rss = {};
  const children = childProcesses();
  for (const name of stack.services) {
    const child = children.find((c) => c.cmdline.some((arg) => arg.endsWith(join('apps', name, 'dist', 'main.js'))));
    const mem = child ? memoryOf(child.pid) : null;
    rss[name] = mem?.peak_kib != null ? round(mem.peak_kib / 1024) : null;
  }
  const natsChild = children.find((c) => /nats-server$/.test(c.cmdline[0] ?? '') && c.cmdline.includes(String(nats.port)));
  const natsMem = natsChild ? memoryOf(natsChild.pid) : null;
  rss['nats-server'] = natsMem?.peak_kib != null ? round(natsMem.peak_kib / 1024) : null;
  const restarts = log.filter((line) => line.includes('exited unexpectedly')).length;

  // Replay: the projector rebuilds its read model from the whole journal.
  progress('replay: postern replay');
  const replayStarted = performance.now();
  const replay = await runCli(['replay', '--json', '--timeout', String(REPLAY_TIMEOUT_MS)], env);
  const replaySeconds = (performance.now() - replayStarted) / 1000;
  let summary = null;
  try {
    summary = JSON.parse(replay.stdout);
  } catch {
    // reported below
  }
  if (replay.code !== 0 || typeof summary?.events !== 'number') {
    throw new Error(`postern replay failed (exit ${replay.code}): ${replay.stderr.trim() || replay.stdout.trim()}`);
  }
  // The same request the CLI sends, timed without a process start around it.
  progress('replay: the same request straight over NATS');
  const directReplayStarted = performance.now();
  const directSummary = await ask(subject.projectorReplay, {}, REPLAY_TIMEOUT_MS);
  const directReplaySeconds = (performance.now() - directReplayStarted) / 1000;

  return {
    wallSeconds: (performance.now() - started) / 1000,
    load,
    loadOk,
    journalEvents,
    bytesPerEvent,
    actionsPerS,
    eventsPerAction,
    rawCount,
    rawPerS,
    latOk,
    directLat: directLat.results,
    loadFailed: load.results.length - loadOk.length,
    latFailed: lat.results.length - latOk.length,
    failures: Object.fromEntries(failures),
    summary,
    replaySeconds,
    directSummary,
    directReplaySeconds,
    rss,
    restarts,
  };
}

function report(r) {
  const p = (samples, q) => round(percentile(samples, q), 2);
  const efficiency = r.eventsPerAction !== null && r.rawPerS > 0 ? (r.actionsPerS * r.eventsPerAction) / r.rawPerS : null;
  const replayEvents = typeof r.directSummary?.events === 'number' ? r.directSummary.events : r.summary.events;
  const replayPerS = replayEvents / r.directReplaySeconds;
  const rows = [
    ['brokered actions', `${r.loadOk.length} ok, ${r.loadFailed} failed in ${r.load.seconds.toFixed(2)} s (concurrency ${options.concurrency})`],
    ['actions/s', round(r.actionsPerS)],
    ['journal events per action', round(r.eventsPerAction, 2)],
    ['raw JetStream publishes/s', `${round(r.rawPerS)} (${r.rawCount} × ${r.bytesPerEvent} B, file storage)`],
    ['journal efficiency', round(efficiency, 3)],
    ['latency under load p50 / p99 ms', `${p(r.loadOk, 50)} / ${p(r.loadOk, 99)}`],
    ['brokered latency p50 / p99 ms', `${p(r.latOk, 50)} / ${p(r.latOk, 99)} (one at a time, ${r.latOk.length} ok, ${r.latFailed} failed)`],
    ['direct undici p50 / p99 ms', `${p(r.directLat, 50)} / ${p(r.directLat, 99)} (one at a time, ${r.directLat.length})`],
    ['replay', `${replayEvents} events, ${r.summary.invocations} invocations in ${r.directReplaySeconds.toFixed(2)} s = ${round(replayPerS)} events/s`],
    ['postern replay (CLI, with process start)', `${r.summary.events} events in ${r.replaySeconds.toFixed(2)} s`],
    ...Object.entries(r.rss).map(([name, mb]) => [`peak RSS ${name}`, mb === null ? 'not found' : `${mb} MB`]),
    ['service restarts during the run', r.restarts],
    ['bench wall time', `${r.wallSeconds.toFixed(1)} s`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\nPostern bench (${new Date().toISOString()}, node ${process.version})\n`);
  for (const [key, value] of rows) process.stdout.write(`  ${key.padEnd(width)}  ${value}\n`);
  if (Object.keys(r.failures).length > 0) process.stdout.write(`  failures: ${JSON.stringify(r.failures)}\n`);
  process.stdout.write('\n');
  process.stdout.write(
    `${JSON.stringify({
      actions_per_s: round(r.actionsPerS),
      raw_publishes_per_s: round(r.rawPerS),
      events_per_action: round(r.eventsPerAction, 2),
      journal_efficiency: round(efficiency, 3),
      p50_ms: p(r.latOk, 50),
      p99_ms: p(r.latOk, 99),
      direct_p50_ms: p(r.directLat, 50),
      direct_p99_ms: p(r.directLat, 99),
      loaded_p50_ms: p(r.loadOk, 50),
      loaded_p99_ms: p(r.loadOk, 99),
      replay_events_per_s: round(replayPerS),
      peak_rss_mb: r.rss,
      failed_actions: r.loadFailed + r.latFailed,
    })}\n`,
  );
  return r.loadFailed + r.latFailed === 0 && r.restarts === 0;
}

let exitCode = 0;
try {
  const clean = report(await main());
  if (!clean) {
    progress('some calls failed or a service restarted: the numbers above are not a clean run');
    exitCode = 1;
  }
} catch (err) {
  progress(`failed: ${err instanceof Error ? err.stack ?? err.message : err}`);
  exitCode = 1;
} finally {
  progress('stopping the stack and cleaning up');
  await cleanup();
}
process.exit(exitCode);
