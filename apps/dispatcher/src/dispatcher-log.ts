import type { ServiceLog } from '@postern/service';

// The dispatcher's files import their log from here; the JSON-line log itself is the services' shared one.
export { errorName, jsonLog as stdoutLog, silentLog } from '@postern/service';
export type { LogFields } from '@postern/service';
export type DispatcherLog = ServiceLog;
