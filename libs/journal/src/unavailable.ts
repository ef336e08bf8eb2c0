import { JetStreamApiError } from '@nats-io/jetstream';
import { ConnectionError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { JournalUnavailableError } from './errors.js';

/**
 * Whether an error says that NATS or JetStream could not be reached or did
 * not answer (a restart, a network blip, JetStream recovering its streams),
 * so that the same operation may well succeed a moment later. A refusal the
 * server gave (a full store, a wrong sequence) is not: asking again changes
 * nothing. A connection this process closed or is draining is not either.
 */
export function isUnavailable(err: unknown): boolean {
  // The journal's own wrapper: unavailable unless what it wraps is a refusal.
  if (err instanceof JournalUnavailableError) return err.cause === undefined || isUnavailable(err.cause);
  if (err instanceof TimeoutError || err instanceof NoRespondersError || err instanceof RequestError) return true;
  if (err instanceof ConnectionError) return true;
  // Only "temporarily unavailable" (JetStream recovering, e.g. right after a
  // restart): a full store is a 503 too, with its own code, and final.
  if (err instanceof JetStreamApiError) return err.code === JETSTREAM_TEMPORARILY_UNAVAILABLE;
  return err instanceof Error && err.name === 'JetStreamNotEnabled';
}

/** JetStream's error code for "JetStream system temporarily unavailable". */
const JETSTREAM_TEMPORARILY_UNAVAILABLE = 10008;

export interface RetryWhileUnavailableOptions {
  /** How long to keep trying, from the first failure (ms). */
  windowMs: number;
  /** Told before each wait, with the error and the wait. */
  onRetry?: (err: unknown, waitMs: number) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The wait before try `n + 1` (n from 1): doubling from 100 ms, at most 2 s. */
export function unavailableBackoffMs(n: number): number {
  return Math.min(100 * 2 ** Math.min(n - 1, 5), 2_000);
}

/**
 * Runs `op` again while it fails because NATS is unavailable, until
 * `windowMs` has passed since the first failure; any other error, and the
 * last one once the window is spent, is thrown. `op` must be safe to repeat
 * (an append with the same message id and expected sequence, a put of the
 * same object).
 */
export async function retryWhileUnavailable<T>(op: () => Promise<T>, opts: RetryWhileUnavailableOptions): Promise<T> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let firstFailure: number | null = null;
  // Bounded by the window; the count bounds it too should the clock stand still.
  for (let n = 1; ; n++) {
    try {
      return await op();
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      firstFailure ??= now();
      const wait = unavailableBackoffMs(n);
      if (now() - firstFailure + wait > opts.windowMs || n >= 10_000) throw err;
      opts.onRetry?.(err, wait);
      await sleep(wait);
    }
  }
}
