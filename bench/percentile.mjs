// Nearest-rank percentiles: with few samples an interpolated p99 would report
// a latency that no call actually had.

/** The p-th percentile (0 < p <= 100) of `samples` by nearest rank; null when empty. */
export function percentile(samples, p) {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
