export { openSshConnection } from './connect.js';
export { execCommand } from './exec.js';
export { SshConnection } from './ssh-connection.js';
export { sshHostKeyFingerprint, sshKeyFingerprint, parsePrivateKey, normalizeHostKeyPin } from './host-key-fingerprint.js';
export { SshConnectAbortedError, InvalidSshKeyError } from './errors.js';
export type {
  SshTarget,
  SshResolvedAddress,
  SshLookup,
  SshAuth,
  SshConnectOptions,
  SshStageTiming,
  SshSetupFailure,
  SshConnectResult,
  SshExecRequest,
  SshExecOptions,
  SshExecEnd,
  SshExecReport,
} from './types.js';
