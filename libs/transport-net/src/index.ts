// What every transport shares: the DNS and TCP stages, done by Postern
// itself so that each stage is recorded, and their timing.
export { resolveAndConnect, withDeadline, errorCode, SetupStageError } from './net-connect.js';
export type { AbortErrorFactory, NetSetupFailure, ResolveAndConnectOptions } from './net-connect.js';
export { timedStage, stageTiming } from './stage-timing.js';
export type { Lookup, ResolvedAddress, StageTiming } from './net-types.js';
