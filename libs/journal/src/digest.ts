import { createHash } from 'node:crypto';

export type Digest = `sha256:${string}`;

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function digestOf(data: Uint8Array | string): Digest {
  return `sha256:${sha256Hex(data)}`;
}
