// Polls an HTTP URL until it answers 2xx; bounded in time, never throws.
import { setTimeout as sleep } from 'node:timers/promises';

export async function waitForHttp(url, { timeoutMs = 30_000, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await response.body?.cancel();
      if (response.ok) return true;
    } catch {
      // Not listening yet.
    }
    await sleep(intervalMs);
  }
  return false;
}
