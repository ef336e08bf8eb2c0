import { subjects } from '@postern/contract';
import { readPrefix } from '@postern/service';

/** Injection tokens of the delivery module. */
export const DELIVERY_CONFIG = Symbol('DELIVERY_CONFIG');
export const DELIVERY_RESOURCES = Symbol('DELIVERY_RESOURCES');
export const DELIVERY_JOURNAL = Symbol('DELIVERY_JOURNAL');
export const DELIVERY_POLICY = Symbol('DELIVERY_POLICY');
export const DELIVERY_LOG = Symbol('DELIVERY_LOG');
export const DELIVERY_CLOCK = Symbol('DELIVERY_CLOCK');
export const DELIVERY_TUNING = Symbol('DELIVERY_TUNING');

/**
 * The subject prefix, read once when this module is first imported. Handler
 * subjects are fixed by decorators at class definition, so they cannot wait
 * for the module's configuration; `DeliveryModule.register` refuses a config
 * whose prefix differs, so the two can never drift apart.
 */
export const DELIVERY_PREFIX = readPrefix(process.env);
export const DELIVERY_SUBJECTS = subjects(DELIVERY_PREFIX);

/** Durable consumer role: every delivery process shares it, so replicas split the commits. */
export const DELIVERY_DURABLE = 'delivery';

export function deliveryQueue(prefix: string): string {
  return `${prefix}_delivery`;
}

/** Epoch milliseconds; tests pass their own to judge retention without waiting. */
export type Clock = () => number;

/** Bounds of waiting, overridable by tests. */
export interface DeliveryTuning {
  /** `actions.await` without a timeout_ms (CONTRACT.md leaves it to the broker). */
  defaultAwaitMs: number;
  /** The longest a caller may hold an await open. */
  maxAwaitMs: number;
  /** Re-read interval while waiting, in case an event's core publication was missed. */
  pollMs: number;
}

export const DEFAULT_TUNING: Readonly<DeliveryTuning> = Object.freeze({
  defaultAwaitMs: 30_000,
  maxAwaitMs: 300_000,
  pollMs: 1_000,
});
