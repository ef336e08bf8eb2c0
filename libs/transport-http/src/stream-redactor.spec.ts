import { describe, expect, it } from 'vitest';
import { secretForms } from './injection.js';
import { StreamRedactor } from './stream-redactor.js';

const secret = new TextEncoder().encode('canary-7f3a9');

function run(text: string, sizes: number[]): string {
  const r = new StreamRedactor(secretForms(secret));
  const input = Buffer.from(text);
  const out: Uint8Array[] = [];
  let at = 0;
  let i = 0;
  while (at < input.length) {
    const n = sizes[i++ % sizes.length] as number;
    out.push(r.push(input.subarray(at, at + n)));
    at += n;
  }
  out.push(r.end());
  return Buffer.concat(out).toString();
}

describe('StreamRedactor', () => {
  const text = `head canary-7f3a9 mid ${Buffer.from('canary-7f3a9').toString('base64')} tail ${Buffer.from('canary-7f3a9').toString('hex')}.`;
  const expected = 'head [REDACTED] mid [REDACTED] tail [REDACTED].';

  for (const sizes of [[1], [2, 3], [5], [7, 1, 13], [1000]]) {
    it(`catches secrets split across chunks of ${sizes.join(',')}`, () => {
      expect(run(text, sizes)).toBe(expected);
    });
  }

  it('passes unrelated bytes through unchanged', () => {
    expect(run('plain body, nothing here', [3])).toBe('plain body, nothing here');
  });

  it('holds back no more than the longest form', () => {
    const r = new StreamRedactor(secretForms(secret));
    const out = r.push(Buffer.from('x'.repeat(100)));
    const longest = Math.max(...secretForms(secret).map((f) => f.length));
    expect(out.length).toBe(100 - (longest - 1));
  });
});
