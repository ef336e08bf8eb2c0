/**
 * The last few verified streams, so a caller reading a large body part by
 * part does not make the service re-read and re-hash the whole stream for
 * every part. Bounded in entries and bytes; keys name an immutable object
 * (the result of one attempt), so an entry never goes stale.
 */
export class StreamCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 8,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  get(key: string): Uint8Array | undefined {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Uint8Array): void {
    if (value.byteLength > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, value);
    this.bytes += value.byteLength;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
  }

  /** Drops every entry whose key starts with `prefix` (an expired result's streams). */
  dropPrefix(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.delete(key);
  }

  private delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= old.byteLength;
  }
}
