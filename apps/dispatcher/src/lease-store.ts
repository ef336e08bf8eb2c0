import type { KV } from '@nats-io/kv';
import { decodeKvKey, encodeKvKey } from '@postern/journal';
import type { Lease } from '@postern/contract';

export interface LeaseEntry {
  lease: Lease;
  revision: number;
}

const encoder = new TextEncoder();

/**
 * KV `<prefix>_leases`, one entry per invocation. Every write is a
 * compare-and-set on the revision the writer read (create when absent), so
 * of two workers deciding from the same entry only one succeeds.
 */
export class LeaseStore {
  constructor(private readonly kv: KV) {}

  async read(invocationId: string): Promise<LeaseEntry | null> {
    const entry = await this.kv.get(encodeKvKey(invocationId));
    if (entry === null || entry.operation !== 'PUT') return null;
    return { lease: entry.json<Lease>(), revision: entry.revision };
  }

  /** The new revision, or null when another writer changed the entry first. */
  async write(invocationId: string, lease: Lease, expectedRevision: number | null): Promise<number | null> {
    const data = encoder.encode(JSON.stringify(lease));
    try {
      return expectedRevision === null
        ? await this.kv.create(encodeKvKey(invocationId), data)
        : await this.kv.update(encodeKvKey(invocationId), data, expectedRevision);
    } catch (err) {
      if (isCasConflict(err)) return null;
      throw err;
    }
  }

  /** Every invocation that ever held a lease; recovery looks through them. */
  async keys(): Promise<string[]> {
    const out: string[] = [];
    const iter = await this.kv.keys();
    for await (const key of iter) out.push(decodeKvKey(key));
    return out;
  }
}

// The KV client reports a lost compare-and-set as a JetStream API error
// about the expected last sequence (create: the key exists).
function isCasConflict(err: unknown): boolean {
  const text = err instanceof Error ? `${err.message} ${String((err as { code?: unknown }).code ?? '')}` : String(err);
  return /wrong last sequence|10071|key exists|10164/i.test(text);
}
