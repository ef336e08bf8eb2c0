export { freePort } from './free-port.js';
export { startNatsServer, findNatsServerBinary } from './nats-server.js';
export type { NatsServerHandle, NatsServerOptions } from './nats-server.js';
export { NatsServerNotFoundError, NatsServerStartError } from './errors.js';
