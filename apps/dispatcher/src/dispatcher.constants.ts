/** Injection tokens of the dispatcher module. */
export const DISPATCHER_CONFIG = Symbol('DISPATCHER_CONFIG');
export const DISPATCHER_RESOURCES = Symbol('DISPATCHER_RESOURCES');
export const DISPATCHER_POLICY = Symbol('DISPATCHER_POLICY');
export const DISPATCHER_LOG = Symbol('DISPATCHER_LOG');
export const DISPATCHER_OPTIONS = Symbol('DISPATCHER_OPTIONS');

/** The durable consumer every dispatcher process shares, so replicas split the work. */
export const DISPATCHER_DURABLE = 'dispatcher';
