import { UsageError } from './errors.js';

// Far above the NATS max payload (1 MiB by default); a bound, not a policy.
const MAX_STDIN_BYTES = 64 * 1024 * 1024;

/** Reads all of a stream, refusing to hold more than a bound in memory. */
export async function readAll(stream: AsyncIterable<Buffer | string>, limit = MAX_STDIN_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total > limit) throw new UsageError(`stdin holds more than ${limit} bytes`);
    chunks.push(buf);
  }
  const all = Buffer.concat(chunks, total);
  // stdin may hold a secret: leave only the one copy the caller can wipe.
  for (const chunk of chunks) chunk.fill(0);
  return all;
}
