import type { Socket } from 'node:net';
import { CredentialType, SetupFailure, Stage } from '@postern/contract';
import { type AbortErrorFactory, resolveAndConnect, SetupStageError, stageTiming } from '@postern/transport-net';
import ssh2 from 'ssh2';
import { SshConnectAbortedError } from './errors.js';
import { normalizeHostKeyPin, parsePrivateKey, sshHostKeyFingerprint } from './host-key-fingerprint.js';
import { SshConnection } from './ssh-connection.js';
import type { SshConnectOptions, SshConnectResult, SshSetupFailure, SshStageTiming, SshTarget } from './types.js';

type Failed = Extract<SshConnectResult, { ok: false }>;

const abortError: AbortErrorFactory = (cause) => new SshConnectAbortedError({ cause });

/** A function so that TypeScript does not narrow `aborted` across awaits. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** ssh2's error level and message, bounded; its messages carry no key or password. */
function sshDiagnostic(err: unknown): string {
  const e = err as { level?: unknown; message?: unknown } | null;
  const level = e !== null && typeof e === 'object' && typeof e.level === 'string' ? e.level : 'unknown';
  const message = e !== null && typeof e === 'object' && typeof e.message === 'string' ? e.message : '';
  return `${level}: ${message}`.slice(0, 200);
}

interface HandshakeState {
  verdict: 'accepted' | 'refused' | null;
  presented: string | undefined;
  hostKeyAt: number;
  handshakeDone: boolean;
}

/**
 * SSH over an already connected socket: key exchange, host key against the
 * pins, user auth. Resolves with the ready client or rejects with a SetupStageError.
 */
function sshHandshake(
  socket: Socket,
  opts: SshConnectOptions,
  pins: ReadonlySet<string>,
  stages: SshStageTiming[],
  state: HandshakeState,
  remote: { address: string; port: number },
): Promise<SshConnection> {
  const client = new ssh2.Client();
  const started = Date.now();
  const t0 = performance.now();
  let authStarted = 0;
  let authT0 = 0;
  // In order of their start: the host key check happens inside the key exchange.
  const finishStages = (ok: boolean) => {
    const handshakeEnd = state.handshakeDone ? authT0 : performance.now();
    stages.push({ stage: Stage.ssh_handshake, started_at_ms: started, duration_ms: handshakeEnd - t0, ok: state.handshakeDone });
    if (state.verdict !== null) {
      stages.push({ stage: Stage.ssh_host_key, started_at_ms: state.hostKeyAt, duration_ms: 0, ok: state.verdict === 'accepted' });
    }
    if (state.handshakeDone) stages.push(stageTiming(Stage.ssh_auth, authStarted, authT0, ok));
  };
  return new Promise<SshConnection>((resolve, reject) => {
    let settled = false;
    const onAbort = () => settle(new SshConnectAbortedError({ cause: opts.signal?.reason }));
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('close', onClose);
      finishStages(err === null);
      if (err === null) {
        // Wrapped before any await: its 'close' and 'error' listeners must be
        // in place before the next event can fire.
        resolve(new SshConnection(client, remote.address, remote.port, state.presented ?? ''));
        return;
      }
      client.on('error', () => undefined);
      client.destroy();
      socket.destroy();
      reject(err);
    };
    const classifyError = (diagnostic: string, level: string | undefined): SetupStageError<SshSetupFailure> => {
      // The verifier's verdict decides, not ssh2's wording: a refused key
      // surfaces as a generic handshake error.
      if (state.verdict === 'refused') return new SetupStageError(SetupFailure.ssh_host_key, Stage.ssh_host_key, diagnostic);
      if (level === 'client-authentication') return new SetupStageError(SetupFailure.ssh_auth, Stage.ssh_auth, diagnostic);
      return new SetupStageError(SetupFailure.ssh_kex, state.handshakeDone ? Stage.ssh_auth : Stage.ssh_handshake, diagnostic);
    };
    const onReady = () => settle(null);
    const onError = (err: unknown) => {
      const level = (err as { level?: unknown } | null)?.level;
      settle(classifyError(sshDiagnostic(err), typeof level === 'string' ? level : undefined));
    };
    const onClose = () => settle(classifyError('connection_closed', undefined));
    client.once('handshake', () => {
      state.handshakeDone = true;
      authStarted = Date.now();
      authT0 = performance.now();
    });
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('close', onClose);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const auth =
      opts.auth.kind === CredentialType.ssh_key
        ? {
            privateKey: typeof opts.auth.privateKey === 'string' ? opts.auth.privateKey : Buffer.from(opts.auth.privateKey),
            passphrase: opts.auth.passphrase,
          }
        : { password: opts.auth.password };
    client.connect({
      sock: socket,
      username: opts.username,
      ...auth,
      tryKeyboard: false,
      readyTimeout: opts.connectTimeoutMs,
      keepaliveInterval: 0,
      // ssh2 accepts every host key when no verifier is set: one is always set.
      hostVerifier: (key: Buffer): boolean => {
        state.hostKeyAt = Date.now();
        const fingerprint = sshHostKeyFingerprint(key);
        state.presented = fingerprint;
        const accepted = pins.has(fingerprint);
        state.verdict = accepted ? 'accepted' : 'refused';
        return accepted;
      },
    });
  });
}

/**
 * Sets up an SSH connection stage by stage (DNS, TCP, key exchange, host
 * key, user auth) and reports each. A failure here is before the dispatch
 * boundary: no channel was opened.
 */
export async function openSshConnection(target: SshTarget, opts: SshConnectOptions): Promise<SshConnectResult> {
  const stages: SshStageTiming[] = [];
  const deadline = Date.now() + opts.connectTimeoutMs;
  const state: HandshakeState = { verdict: null, presented: undefined, hostKeyAt: 0, handshakeDone: false };
  const fail = (e: SetupStageError<SshSetupFailure>): Failed => {
    const failed: Failed = { ok: false, failure: e.failure, stage: e.stage, diagnostic: e.diagnostic, stages };
    if (state.presented !== undefined) failed.host_key_sha256 = state.presented;
    return failed;
  };
  if (opts.signal?.aborted === true) throw new SshConnectAbortedError({ cause: opts.signal.reason });
  if (opts.auth.kind === CredentialType.ssh_key) {
    // An unusable key is the credential's fault; nothing goes on the wire for it.
    try {
      parsePrivateKey(opts.auth.privateKey, opts.auth.passphrase);
    } catch {
      return fail(new SetupStageError(SetupFailure.ssh_auth, Stage.ssh_auth, 'private_key_unparsable'));
    }
  }
  const pins = new Set<string>();
  for (const pin of opts.hostKeys) {
    const normalized = normalizeHostKeyPin(pin);
    if (normalized !== null) pins.add(normalized);
  }
  try {
    const socket = await resolveAndConnect(target, { deadline, lookup: opts.lookup, signal: opts.signal }, stages, abortError);
    const remoteAddress = socket.remoteAddress ?? '';
    const remotePort = socket.remotePort ?? target.port;
    if (isAborted(opts.signal)) {
      socket.destroy();
      throw new SshConnectAbortedError({ cause: opts.signal?.reason });
    }
    const connection = await sshHandshake(socket, opts, pins, stages, state, { address: remoteAddress, port: remotePort });
    return { ok: true, connection, stages, host_key_sha256: connection.hostKeySha256 };
  } catch (err) {
    if (err instanceof SetupStageError) return fail(err);
    throw err;
  }
}
