import { JetStreamApiError } from '@nats-io/jetstream';
import { NoRespondersError, TimeoutError } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { AppendConflictError, JournalUnavailableError } from './errors.js';
import { isUnavailable, retryWhileUnavailable, unavailableBackoffMs } from './unavailable.js';

const apiError = (status: number, errCode: number) => new JetStreamApiError({ code: status, err_code: errCode, description: `status ${status}` });
const temporarilyUnavailable = () => apiError(503, 10008);
const storeFull = () => apiError(503, 10077);

describe('isUnavailable', () => {
  it('takes no answer, no responders and a 503 from JetStream as an outage', () => {
    expect(isUnavailable(new TimeoutError())).toBe(true);
    expect(isUnavailable(new NoRespondersError('x'))).toBe(true);
    expect(isUnavailable(new JournalUnavailableError('x'))).toBe(true);
    expect(isUnavailable(temporarilyUnavailable())).toBe(true);
    expect(isUnavailable(new JournalUnavailableError('x', { cause: new TimeoutError() }))).toBe(true);
  });

  it('takes a refusal the server gave, and anything else, as final', () => {
    expect(isUnavailable(apiError(400, 10071))).toBe(false);
    // A full store answers 503 as well, with its own code.
    expect(isUnavailable(storeFull())).toBe(false);
    expect(isUnavailable(new JournalUnavailableError('could not store', { cause: storeFull() }))).toBe(false);
    expect(isUnavailable(new AppendConflictError('x'))).toBe(false);
    expect(isUnavailable(new Error('boom'))).toBe(false);
    expect(isUnavailable('text')).toBe(false);
  });
});

describe('retryWhileUnavailable', () => {
  function clock() {
    let t = 0;
    return { now: () => t, sleep: async (ms: number) => void (t += ms), waits: [] as number[] };
  }

  it('tries again through an outage and returns what the operation finally gave', async () => {
    const c = clock();
    let calls = 0;
    const result = await retryWhileUnavailable(
      async () => {
        calls++;
        if (calls < 4) throw new TimeoutError();
        return 'stored';
      },
      { windowMs: 10_000, now: c.now, sleep: c.sleep, onRetry: (_e, w) => c.waits.push(w) },
    );
    expect(result).toBe('stored');
    expect(calls).toBe(4);
    expect(c.waits).toEqual([100, 200, 400]);
  });

  it('throws the last outage error once the window is spent', async () => {
    const c = clock();
    let calls = 0;
    const op = async () => {
      calls++;
      throw new TimeoutError();
    };
    await expect(retryWhileUnavailable(op, { windowMs: 3_000, now: c.now, sleep: c.sleep })).rejects.toBeInstanceOf(TimeoutError);
    expect(c.now()).toBeLessThanOrEqual(3_000);
    expect(calls).toBeGreaterThan(3);
  });

  it('throws a refusal at once, without asking again', async () => {
    let calls = 0;
    const op = async () => {
      calls++;
      throw storeFull();
    };
    await expect(retryWhileUnavailable(op, { windowMs: 60_000, sleep: async () => undefined })).rejects.toBeInstanceOf(JetStreamApiError);
    expect(calls).toBe(1);
  });

  it('waits longer each time, up to 2 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(unavailableBackoffMs)).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  });
});
