import { leaseIsLive, nextLease, renewedLease, type Lease } from '@postern/contract';
import { isUnavailable } from '@postern/journal';
import type { LeaseStore } from './lease-store.js';

export interface LeaseClaim {
  invocation_id: string;
  holder: string;
  attempt: number;
  lease_ms: number;
}

export type AcquireResult =
  | { kind: 'acquired'; lease: AttemptLease }
  /** A live lease of another holder: come back after `wait_ms`. */
  | { kind: 'busy'; wait_ms: number; holder: string }
  /** Another worker wrote the entry between our read and our write. */
  | { kind: 'raced' };

/**
 * This worker's hold on one invocation's attempt. It knows the revision it
 * last wrote, so every renewal and the release are compare-and-sets: once
 * another worker has taken over, each of them fails instead of overwriting.
 */
export class AttemptLease {
  private timer: NodeJS.Timeout | null = null;
  private lostFlag = false;

  private constructor(
    private readonly store: LeaseStore,
    private current: Lease,
    private revision: number,
    private readonly leaseMs: number,
    private readonly now: () => number,
  ) {}

  static async acquire(store: LeaseStore, claim: LeaseClaim, now: () => number): Promise<AcquireResult> {
    const entry = await store.read(claim.invocation_id);
    const t = now();
    const next = nextLease(entry?.lease ?? null, claim, t);
    if (next === null) {
      const lease = entry!.lease;
      return { kind: 'busy', wait_ms: Math.max(0, lease.expires_at_ms - t), holder: lease.holder };
    }
    const revision = await store.write(claim.invocation_id, next, entry?.revision ?? null);
    if (revision === null) return { kind: 'raced' };
    return { kind: 'acquired', lease: new AttemptLease(store, next, revision, claim.lease_ms, now) };
  }

  get generation(): number {
    return this.current.generation;
  }

  get attempt(): number {
    return this.current.attempt;
  }

  get expiresAtMs(): number {
    return this.current.expires_at_ms;
  }

  /**
   * The lease expired before it could be renewed, or the entry changed
   * hands: the attempt must not start a dispatch on it.
   */
  get lost(): boolean {
    return this.lostFlag;
  }

  /**
   * Extends the lease; false once it is lost. A KV that does not answer (a
   * NATS restart) loses nothing by itself: the next renewal tries again,
   * and the clock says when the lease has run out meanwhile.
   */
  async renew(): Promise<boolean> {
    if (this.lostFlag) return false;
    const next = renewedLease(this.current, this.current.holder, this.current.generation, this.leaseMs, this.now());
    if (next === null) return this.markLost();
    let revision: number | null;
    try {
      revision = await this.store.write(this.current.invocation_id, next, this.revision);
    } catch (err) {
      return isUnavailable(err) ? true : this.markLost();
    }
    if (revision === null) return this.adoptOwnWrite();
    this.current = next;
    this.revision = revision;
    return true;
  }

  /**
   * A renewal lost its compare-and-set. If the entry still names this holder
   * and generation, the write it lost to was this worker's own earlier
   * renewal whose answer the outage swallowed: take its revision and go on.
   */
  private async adoptOwnWrite(): Promise<boolean> {
    const entry = await this.store.read(this.current.invocation_id).catch(() => null);
    const own =
      entry !== null &&
      entry.lease.holder === this.current.holder &&
      entry.lease.generation === this.current.generation &&
      entry.lease.released !== true &&
      leaseIsLive(entry.lease, this.now());
    if (!own) return this.markLost();
    this.current = entry.lease;
    this.revision = entry.revision;
    return true;
  }

  /** Renews at a third of the lease while the attempt works; `onLost` fires once if a renewal fails. */
  keepAlive(onLost: () => void): void {
    if (this.timer !== null) return;
    const every = Math.max(50, Math.floor(this.leaseMs / 3));
    this.timer = setInterval(() => {
      void this.renew().then((ok) => {
        if (!ok) {
          this.stopKeepAlive();
          onLost();
        }
      });
    }, every);
    this.timer.unref();
  }

  stopKeepAlive(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Re-reads the entry: still this holder, this generation, and not expired. */
  async stillOurs(): Promise<boolean> {
    if (this.lostFlag) return false;
    const entry = await this.store.read(this.current.invocation_id);
    const ok =
      entry !== null &&
      entry.revision === this.revision &&
      entry.lease.holder === this.current.holder &&
      entry.lease.generation === this.current.generation &&
      leaseIsLive(entry.lease, this.now());
    return ok || this.markLost();
  }

  /** Lets go, so the next attempt or a retry need not wait for expiry. */
  async release(): Promise<boolean> {
    this.stopKeepAlive();
    if (this.lostFlag) return false;
    const released: Lease = { ...this.current, released: true };
    const revision = await this.store.write(this.current.invocation_id, released, this.revision).catch(() => null);
    if (revision === null) return this.markLost();
    this.current = released;
    this.revision = revision;
    return true;
  }

  private markLost(): false {
    this.lostFlag = true;
    this.stopKeepAlive();
    return false;
  }
}
