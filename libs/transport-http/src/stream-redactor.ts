import { redact } from './injection.js';

/**
 * Redacts a body that arrives in chunks: a secret split across two chunks is
 * still caught, because the last `longest form - 1` bytes are held back until
 * the next chunk (or `end`) shows how they continue.
 */
export class StreamRedactor {
  private pending: Buffer = Buffer.alloc(0);
  private readonly hold: number;

  constructor(private readonly forms: readonly string[]) {
    this.hold = Math.max(0, ...forms.map((f) => Buffer.byteLength(f, 'utf8') - 1));
  }

  /** The redacted bytes that are safe to store now (possibly empty). */
  push(chunk: Uint8Array): Uint8Array {
    const redacted = Buffer.from(redact(Buffer.concat([this.pending, chunk]), this.forms));
    const cut = Math.max(0, redacted.length - this.hold);
    this.pending = Buffer.from(redacted.subarray(cut));
    return new Uint8Array(redacted.subarray(0, cut));
  }

  /** Whatever was held back, redacted. */
  end(): Uint8Array {
    const out = redact(this.pending, this.forms);
    this.pending = Buffer.alloc(0);
    return out;
  }
}
