#!/usr/bin/env node
// `npm start`: make the clone runnable, then run the stack until a signal.
import { bootstrap } from './bootstrap.mjs';
import { waitForHttp } from './http-ready.mjs';
import { redactUrl } from './redact-url.mjs';
import { startStack } from './stack.mjs';

const say = (line) => process.stdout.write(`${line}\n`);

async function main() {
  const natsUrlSet = Boolean(process.env.NATS_URL?.trim());
  const { natsServerBin } = await bootstrap({ natsServer: natsUrlSet ? 'optional' : 'required', log: say });
  const stack = await startStack({ env: process.env, log: say, natsServerBin, colour: Boolean(process.stdout.isTTY) });
  say(`postern: NATS ${redactUrl(stack.natsUrl)} (${stack.ownNats ? `own nats-server, store ${stack.home}/nats` : 'existing server'})`);
  say(`postern: services ${stack.services.join(', ')}; logs in ${stack.home}/logs`);

  let stopping = false;
  const shutdown = (signal) => {
    if (stopping) return say(`postern: ${signal} again; still stopping (at most 10 s per process)`);
    stopping = true;
    say(`postern: ${signal}, stopping`);
    stack.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  stack.exited.then(({ code, reason }) => {
    say(`postern: stopped: ${reason}`);
    process.exit(code);
  });

  if (stack.services.includes('projector')) {
    const ready = await waitForHttp(`${stack.apiUrl}/healthz`);
    if (!stopping) say(`postern: read API ${ready ? 'listening on' : 'not answering yet on'} ${stack.apiUrl}`);
  }
}

main().catch((err) => {
  process.stderr.write(`postern: ${err instanceof Error ? err.message : err}\n`);
  process.exit(1);
});
