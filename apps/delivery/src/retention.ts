/**
 * Results are kept for the policy's `results.retention_s`, counted from the
 * RESULT_COMMITTED event. An unreadable commit time never expires a result:
 * serving a result a little long is harmless, refusing one is not.
 */
export function resultExpiresAtMs(committedAt: string, retentionS: number): number | null {
  const at = Date.parse(committedAt);
  if (!Number.isFinite(at) || !Number.isFinite(retentionS)) return null;
  return at + retentionS * 1000;
}

export function resultExpired(committedAt: string, retentionS: number, nowMs: number): boolean {
  const expiresAt = resultExpiresAtMs(committedAt, retentionS);
  return expiresAt !== null && nowMs >= expiresAt;
}
