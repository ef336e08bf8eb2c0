// The whole broker as child processes: NATS (reused or our own) and every
// service app, supervised. `npm start`, `postern up` and the e2e tests share it.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findNatsServerBinary } from './nats-server-binary.mjs';
import { lineLabel } from './line-label.mjs';
import { resolveNats } from './local-nats.mjs';
import { repoRoot } from './repo-root.mjs';
import { serviceApps } from './service-apps.mjs';
import { StackError } from './stack-error.mjs';
import { superviseProcess } from './supervised-process.mjs';

export const DEFAULT_HTTP_PORT = 8640;
const GRACE_MS = 10_000;

/**
 * Starts the stack and resolves once every child is spawned (and NATS answers).
 *
 * - `home`: POSTERN_HOME (default `env.POSTERN_HOME`, else `./.postern`), made absolute.
 * - `env`: the environment handed to every service, plus the resolved NATS_URL and POSTERN_HOME.
 * - `log`: where lines go (default console.log); children's lines arrive prefixed.
 * - `services`: names to start (default: every service app present).
 * - `localNatsPort`: where to look for, or start, a local NATS when NATS_URL is unset (default 4222).
 *
 * Returns `{ natsUrl, home, apiUrl, services, stop(), exited }`; `exited`
 * resolves with `{ code, reason }` when the stack gave up on its own.
 */
export async function startStack({
  home,
  env = process.env,
  log = console.log,
  root = repoRoot,
  services,
  natsServerBin = findNatsServerBinary(env),
  colour = false,
  graceMs = GRACE_MS,
  maxRestartsPerMinute = 5,
  localNatsPort,
} = {}) {
  const homeDir = resolve(home ?? (env.POSTERN_HOME?.trim() || '.postern'));
  mkdirSync(join(homeDir, 'logs'), { recursive: true });

  const apps = serviceApps(root).filter((app) => !services || services.includes(app.name));
  const unknown = (services ?? []).filter((name) => !apps.some((app) => app.name === name));
  if (unknown.length > 0) throw new StackError(`no service app named ${unknown.join(', ')} under apps/`);
  if (apps.length === 0) throw new StackError('no service apps found under apps/');
  const unbuilt = apps.filter((app) => !app.built);
  if (unbuilt.length > 0) {
    throw new StackError(
      `not built: ${unbuilt.map((app) => `apps/${app.name}/dist/main.js`).join(', ')}. ` +
        'Run `npm run build` and fix what it reports, then start again.',
    );
  }

  const width = Math.max(4, ...apps.map((app) => app.name.length));
  const labelFor = (name, index) => lineLabel(name, { width, colour, index });
  let resolveExited;
  const exited = new Promise((wake) => {
    resolveExited = wake;
  });
  let stopping = null;
  const children = [];
  let natsServer = null;

  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(children.map((child) => child.stop(graceMs)));
      // NATS last: services flush their final appends on the way down.
      if (natsServer) await natsServer.stop(graceMs);
    })();
    return stopping;
  };

  const giveUp = ({ name, lastLines }) => {
    if (stopping) return;
    log(`postern: ${name} keeps exiting; stopping everything. Its last lines:`);
    for (const line of lastLines) log(`  ${line}`);
    const reason = `${name} exited more than ${maxRestartsPerMinute} times within a minute`;
    stop().then(() => resolveExited({ code: 1, reason }));
  };

  const nats = await resolveNats({
    env,
    home: homeDir,
    natsServerBin,
    print: log,
    label: labelFor('nats', apps.length),
    onGiveUp: giveUp,
    localPort: localNatsPort,
  });
  natsServer = nats.server;

  const childEnv = { ...env, NATS_URL: nats.url, POSTERN_HOME: homeDir };
  apps.forEach((app, index) => {
    children.push(
      superviseProcess({
        name: app.name,
        command: process.execPath,
        args: [app.main],
        cwd: root,
        env: childEnv,
        logFile: join(homeDir, 'logs', `${app.name}.log`),
        print: log,
        label: labelFor(app.name, index),
        maxRestartsPerMinute,
        onGiveUp: giveUp,
      }),
    );
  });

  const port = Number(childEnv.POSTERN_HTTP_PORT?.trim() || DEFAULT_HTTP_PORT);
  return {
    natsUrl: nats.url,
    ownNats: natsServer !== null,
    home: homeDir,
    apiUrl: `http://127.0.0.1:${port}`,
    services: apps.map((app) => app.name),
    stop,
    exited,
  };
}
