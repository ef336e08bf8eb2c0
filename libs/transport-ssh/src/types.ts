import type { CredentialType, SetupFailure, Stage } from '@postern/contract';
import type { Lookup, ResolvedAddress, StageTiming } from '@postern/transport-net';
import type { SshConnection } from './ssh-connection.js';

/** Where an SSH connection goes. `host` is a DNS name or an IP literal. */
export interface SshTarget {
  host: string;
  port: number;
}

export type SshResolvedAddress = ResolvedAddress;

/** A resolver returning every address for a name (tests inject one). */
export type SshLookup = Lookup;

/** The credential's secret, handed to ssh2 only; never reported. */
export type SshAuth =
  | { kind: typeof CredentialType.ssh_key; privateKey: Uint8Array | string; passphrase?: string }
  | { kind: typeof CredentialType.ssh_password; password: string };

export interface SshConnectOptions {
  /** Bounds DNS and TCP together, and then the SSH handshake and auth on their own. */
  connectTimeoutMs: number;
  /** The policy's `host_keys` pins, `SHA256:<base64 without padding>`. Empty refuses every host. */
  hostKeys: readonly string[];
  username: string;
  auth: SshAuth;
  lookup?: SshLookup;
  signal?: AbortSignal;
}

/** One connection set-up stage as it happened. */
export type SshStageTiming = StageTiming;

/** The set-up failures an SSH connection can end in. */
export type SshSetupFailure =
  | typeof SetupFailure.dns_nxdomain
  | typeof SetupFailure.dns_temporary
  | typeof SetupFailure.tcp_refused
  | typeof SetupFailure.tcp_timeout
  | typeof SetupFailure.tcp_unreachable
  | typeof SetupFailure.ssh_kex
  | typeof SetupFailure.ssh_host_key
  | typeof SetupFailure.ssh_auth;

export type SshConnectResult =
  | { ok: true; connection: SshConnection; stages: SshStageTiming[]; host_key_sha256: string }
  | {
      ok: false;
      failure: SshSetupFailure;
      stage: Stage;
      /** ssh2 error level, errno or a fixed word; never a secret. */
      diagnostic: string;
      stages: SshStageTiming[];
      /** The fingerprint the server presented, when it got that far (useful to show a refused key). */
      host_key_sha256?: string;
    };

export interface SshExecRequest {
  command: string;
  /** Written to the channel, then EOF. Without it, EOF is sent at once. */
  stdin?: Uint8Array;
}

export interface SshExecOptions {
  /** Bytes per stream passed to the sinks; the rest is counted and dropped. */
  outputBytes: number;
  /** From the call until the channel closes. */
  timeoutMs: number;
  /** Receives only stdout bytes within `outputBytes`, in order. */
  onStdout(chunk: Uint8Array): void | Promise<void>;
  /** Receives only stderr bytes within `outputBytes`, in order. */
  onStderr(chunk: Uint8Array): void | Promise<void>;
  signal?: AbortSignal;
}

/** How the exec ended, as the transport saw it. */
export type SshExecEnd =
  | 'channel_open_refused'
  | 'exec_refused'
  | 'closed'
  | 'connection_lost'
  | 'timeout'
  | 'aborted';

/**
 * Raw facts about one exec, matching the contract's SshObservation plus
 * counters. Nothing here is a judgement; `classify` decides.
 */
export interface SshExecReport {
  connection_id: string;
  /** `exec()` was called on a live connection: the channel open went out. */
  channel_open_sent: boolean;
  channel_open_refused: boolean;
  exec_reply: 'success' | 'failure' | null;
  /** The connection was lost before an exit message arrived. */
  connection_lost: boolean;
  /** The server's CHANNEL_CLOSE arrived (not one synthesised by a dropped connection). */
  channel_closed: boolean;
  exit_status: number | null;
  /** Signal name without the `SIG` prefix, as on the wire (`TERM`). */
  exit_signal: string | null;
  /** The server's CHANNEL_EOF arrived. */
  eof_received: boolean;
  output_over_limit: boolean;
  /** The connection was lost after the exit message, before EOF or close. */
  output_broken: boolean;
  broker_timeout: boolean;
  /** The caller's signal ended the exec. */
  aborted: boolean;
  /** A sink threw or rejected; later bytes were counted, not passed. */
  sink_failed: boolean;
  stdout_bytes: number;
  stderr_bytes: number;
  stdout_passed: number;
  stderr_passed: number;
  stdout_over_limit: boolean;
  stderr_over_limit: boolean;
  ended_by: SshExecEnd;
  /** ssh2 error message class, channel-open reason code or errno; never output or a secret. */
  diagnostic?: string;
}
