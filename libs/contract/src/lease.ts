/**
 * The active attempt of an invocation, as held in KV `<prefix>_leases` under
 * the invocation id (DESIGN.md section 4). nats-server 2.9 has no per-key TTL,
 * so expiry is a time written in the entry; every change is a compare-and-set
 * on the entry's revision.
 */
export interface Lease {
  invocation_id: string;
  /** The dispatcher instance that holds it. */
  holder: string;
  attempt: number;
  /** Grows by one with every acquisition; DISPATCH_STARTED records it. */
  generation: number;
  /** Epoch milliseconds. */
  expires_at_ms: number;
  /** Set when the holder let go: the next acquisition needs no wait. */
  released?: boolean;
}

/** A lease protects its holder until it expires or is released. */
export function leaseIsLive(lease: Lease | null, nowMs: number): boolean {
  return lease !== null && !lease.released && lease.expires_at_ms > nowMs;
}

/**
 * The lease a worker may write when it takes the invocation, or null when a
 * live lease of another holder stands in the way.
 */
export function nextLease(
  current: Lease | null,
  claim: { invocation_id: string; holder: string; attempt: number; lease_ms: number },
  nowMs: number,
): Lease | null {
  if (leaseIsLive(current, nowMs)) return null;
  return {
    invocation_id: claim.invocation_id,
    holder: claim.holder,
    attempt: claim.attempt,
    generation: (current?.generation ?? 0) + 1,
    expires_at_ms: nowMs + claim.lease_ms,
  };
}

/** The same lease, pushed forward; only its holder at its generation may renew it. */
export function renewedLease(current: Lease, holder: string, generation: number, leaseMs: number, nowMs: number): Lease | null {
  if (current.holder !== holder || current.generation !== generation || !leaseIsLive(current, nowMs)) return null;
  return { ...current, expires_at_ms: nowMs + leaseMs };
}
