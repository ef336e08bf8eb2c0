/** Injection tokens of the projector module. */
export const PROJECTOR_CONFIG = Symbol('PROJECTOR_CONFIG');
export const READ_MODEL = Symbol('READ_MODEL');
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const JOURNAL_RESOURCES = Symbol('JOURNAL_RESOURCES');
export const PROJECTOR = Symbol('PROJECTOR');

/** Route metadata: reachable without the bearer token. */
export const IS_PUBLIC = 'postern:public';
