import { createServer, type AddressInfo, type Server } from 'node:net';
import { SetupFailure, Stage } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAndConnect, SetupStageError } from './net-connect.js';
import type { Lookup, StageTiming } from './net-types.js';

// Real sockets on 127.0.0.1; names come from an injected resolver.

let server: Server;
let open: number;
let closed: number;

function listen(): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer((socket) => socket.destroy());
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

beforeAll(async () => {
  server = await listen();
  open = (server.address() as AddressInfo).port;
  const gone = await listen();
  closed = (gone.address() as AddressInfo).port;
  await new Promise<void>((r) => gone.close(() => r()));
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

const aborted = (cause: unknown) => new Error(`aborted: ${String(cause)}`);
const soon = () => Date.now() + 2_000;

async function failure(target: { host: string; port: number }, lookup?: Lookup): Promise<{ err: SetupStageError; stages: StageTiming[] }> {
  const stages: StageTiming[] = [];
  try {
    const socket = await resolveAndConnect(target, { deadline: soon(), ...(lookup ? { lookup } : {}) }, stages, aborted);
    socket.destroy();
  } catch (err) {
    expect(err).toBeInstanceOf(SetupStageError);
    return { err: err as SetupStageError, stages };
  }
  throw new Error('connected');
}

describe('resolveAndConnect', () => {
  it('connects to an IP literal without a DNS stage, and records the TCP stage', async () => {
    const stages: StageTiming[] = [];
    const socket = await resolveAndConnect({ host: '127.0.0.1', port: open }, { deadline: soon() }, stages, aborted);
    socket.destroy();
    expect(stages.map((s) => [s.stage, s.ok])).toEqual([[Stage.tcp_connect, true]]);
    expect(stages[0]!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('resolves a name through the given resolver, then connects', async () => {
    const stages: StageTiming[] = [];
    const lookup: Lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    const socket = await resolveAndConnect({ host: 'api.postern.test', port: open }, { deadline: soon(), lookup }, stages, aborted);
    socket.destroy();
    expect(stages.map((s) => [s.stage, s.ok])).toEqual([
      [Stage.dns, true],
      [Stage.tcp_connect, true],
    ]);
  });

  it('a port nobody listens on is tcp_refused in the TCP stage', async () => {
    const { err, stages } = await failure({ host: '127.0.0.1', port: closed });
    expect([err.failure, err.stage, err.diagnostic]).toEqual([SetupFailure.tcp_refused, Stage.tcp_connect, 'ECONNREFUSED']);
    expect(stages.map((s) => [s.stage, s.ok])).toEqual([[Stage.tcp_connect, false]]);
  });

  it('NXDOMAIN is dns_nxdomain, another resolver failure dns_temporary, no address at all dns_nxdomain', async () => {
    const nx = Object.assign(new Error('x'), { code: 'ENOTFOUND' });
    const servfail = Object.assign(new Error('x'), { code: 'ESERVFAIL' });
    expect((await failure({ host: 'a.test', port: open }, async () => Promise.reject(nx))).err.failure).toBe(SetupFailure.dns_nxdomain);
    expect((await failure({ host: 'a.test', port: open }, async () => Promise.reject(servfail))).err.failure).toBe(SetupFailure.dns_temporary);
    const empty = await failure({ host: 'a.test', port: open }, async () => []);
    expect([empty.err.failure, empty.err.stage]).toEqual([SetupFailure.dns_nxdomain, Stage.dns]);
  });

  it('tries the next address after a quick refusal', async () => {
    const stages: StageTiming[] = [];
    // The server listens on 127.0.0.1 only: 127.0.0.2 (loopback too) refuses at once.
    const lookup: Lookup = async () => [
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const socket = await resolveAndConnect({ host: 'multi.test', port: open }, { deadline: soon(), lookup }, stages, aborted);
    expect(socket.remoteAddress).toBe('127.0.0.1');
    socket.destroy();
    expect(stages.at(-1)).toMatchObject({ stage: Stage.tcp_connect, ok: true });
    const refused = await failure({ host: 'one.test', port: open }, async () => [{ address: '127.0.0.2', family: 4 }]);
    expect(refused.err.failure).toBe(SetupFailure.tcp_refused);
  });

  it('an aborted signal ends the attempt with the caller\'s own error', async () => {
    const controller = new AbortController();
    const lookup: Lookup = () => new Promise(() => undefined);
    const pending = resolveAndConnect({ host: 'slow.test', port: open }, { deadline: soon(), lookup, signal: controller.signal }, [], aborted);
    controller.abort('caller gone');
    await expect(pending).rejects.toThrow('aborted: caller gone');
  });
});
