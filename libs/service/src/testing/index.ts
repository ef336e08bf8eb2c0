// What the services' tests share: a service in-process on a given
// nats-server, a throwaway home, a log that records. Tests reach it as
// `@postern/service/testing`; it is not built, so it never ships.
export { startInProcessService } from './in-process-service.js';
export type { InProcessService, InProcessServiceOptions } from './in-process-service.js';
export { makeTempHome } from './temp-home.js';
export type { TempHome } from './temp-home.js';
export { allStreamBytes } from './stream-bytes.js';
export { captureLog } from './capture-log.js';
