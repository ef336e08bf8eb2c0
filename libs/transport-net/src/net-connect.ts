import { promises as dns } from 'node:dns';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { SetupFailure, Stage } from '@postern/contract';
import { timedStage } from './stage-timing.js';
import type { Lookup, ResolvedAddress, StageTiming } from './net-types.js';

/** Builds the caller's own aborted error, so each transport keeps its error type. */
export type AbortErrorFactory = (cause: unknown) => Error;

/** Carries a set-up failure to the one place that reports it. */
export class SetupStageError<F extends SetupFailure = SetupFailure> extends Error {
  override name = 'SetupStageError';
  constructor(
    readonly failure: F,
    readonly stage: Stage,
    readonly diagnostic: string,
  ) {
    super(diagnostic);
  }
}

/** The failures the DNS and TCP stages can end in. */
export type NetSetupFailure =
  | typeof SetupFailure.dns_nxdomain
  | typeof SetupFailure.dns_temporary
  | typeof SetupFailure.tcp_refused
  | typeof SetupFailure.tcp_timeout
  | typeof SetupFailure.tcp_unreachable;

const defaultLookup: Lookup = async (host) => dns.lookup(host, { all: true, verbatim: true });

/** An error's errno-style code, else its name: a fixed word, never a message. */
export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null;
  if (e !== null && typeof e === 'object' && typeof e.code === 'string') return e.code;
  if (e !== null && typeof e === 'object' && typeof e.name === 'string') return e.name;
  return 'UNKNOWN';
}

function dnsFailure(err: unknown): SetupStageError<NetSetupFailure> {
  const code = errorCode(err);
  // NXDOMAIN and "no data" are answers; everything else may pass with time.
  const failure = code === 'ENOTFOUND' || code === 'ENODATA' ? SetupFailure.dns_nxdomain : SetupFailure.dns_temporary;
  return new SetupStageError(failure, Stage.dns, code);
}

function tcpFailure(code: string): SetupStageError<NetSetupFailure> {
  switch (code) {
    case 'ECONNREFUSED':
      return new SetupStageError(SetupFailure.tcp_refused, Stage.tcp_connect, code);
    case 'ETIMEDOUT':
      return new SetupStageError(SetupFailure.tcp_timeout, Stage.tcp_connect, code);
    default:
      return new SetupStageError(SetupFailure.tcp_unreachable, Stage.tcp_connect, code);
  }
}

/**
 * Settles with whatever `start` settles with, unless the deadline passes
 * (`onTimeout`) or the signal aborts (`abortError`) first; either way
 * `start`'s cleanup runs.
 */
export function withDeadline<T>(
  deadline: number,
  signal: AbortSignal | undefined,
  abortError: AbortErrorFactory,
  onTimeout: () => Error,
  start: (settle: { resolve(v: T): void; reject(e: unknown): void }) => () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let cleanup: () => void = () => undefined;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      cleanup();
      finish(() => reject(abortError(signal?.reason)));
    };
    const timer = setTimeout(() => {
      cleanup();
      finish(() => reject(onTimeout()));
    }, Math.max(0, deadline - Date.now()));
    signal?.addEventListener('abort', onAbort, { once: true });
    cleanup = start({ resolve: (v) => finish(() => resolve(v)), reject: (e) => finish(() => reject(e)) });
  });
}

function tcpConnect(address: ResolvedAddress, port: number, deadline: number, signal: AbortSignal | undefined, abortError: AbortErrorFactory): Promise<Socket> {
  return withDeadline<Socket>(deadline, signal, abortError, () => tcpFailure('ETIMEDOUT'), (settle) => {
    const socket = netConnect({ host: address.address, port, family: address.family });
    socket.setNoDelay(true);
    const onError = (err: unknown) => {
      socket.destroy();
      settle.reject(tcpFailure(errorCode(err)));
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      settle.resolve(socket);
    });
    return () => socket.destroy();
  });
}

export interface ResolveAndConnectOptions {
  /** Absolute (ms since epoch): bounds DNS and TCP together. */
  deadline: number;
  lookup?: Lookup;
  signal?: AbortSignal;
}

/**
 * The DNS and TCP stages, each recorded in `stages`: resolves the name (an IP
 * literal skips DNS) and connects to the addresses in order. A failure throws
 * a SetupStageError; the signal throws `abortError`'s error.
 */
export async function resolveAndConnect(
  target: { host: string; port: number },
  opts: ResolveAndConnectOptions,
  stages: StageTiming[],
  abortError: AbortErrorFactory,
): Promise<Socket> {
  const { deadline, signal } = opts;
  let addresses: ResolvedAddress[];
  const family = isIP(target.host);
  if (family !== 0) {
    addresses = [{ address: target.host, family }];
  } else {
    const lookup = opts.lookup ?? defaultLookup;
    addresses = await timedStage(stages, Stage.dns, () =>
      withDeadline<ResolvedAddress[]>(deadline, signal, abortError, () => new SetupStageError(SetupFailure.dns_temporary, Stage.dns, 'ETIMEOUT'), (settle) => {
        lookup(target.host).then(settle.resolve, (err: unknown) => settle.reject(dnsFailure(err)));
        return () => undefined;
      }),
    );
    if (addresses.length === 0) throw new SetupStageError(SetupFailure.dns_nxdomain, Stage.dns, 'ENODATA');
  }
  return timedStage(stages, Stage.tcp_connect, async () => {
    let last: unknown;
    for (const address of addresses) {
      try {
        return await tcpConnect(address, target.port, deadline, signal, abortError);
      } catch (err) {
        // A timeout spent the whole deadline; only a quick failure tries the next address.
        if (!(err instanceof SetupStageError) || err.failure === SetupFailure.tcp_timeout) throw err;
        last = err;
      }
    }
    throw last;
  });
}
