import { redact } from '@postern/transport-http';
import { describe, expect, it } from 'vitest';
import { sshSecretForms } from './ssh-secret-forms.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const scrub = (output: string, secret: string) => text(redact(Buffer.from(output), sshSecretForms(Buffer.from(secret))));

describe('sshSecretForms', () => {
  it('catches a password raw, trimmed of its newline, and encoded', () => {
    const pw = 'hunter2-Correct-Horse\n';
    const bare = 'hunter2-Correct-Horse';
    const out = scrub(
      `raw=${bare} b64=${Buffer.from(bare).toString('base64')} hex=${Buffer.from(bare).toString('hex')} url=${encodeURIComponent(bare)}`,
      pw,
    );
    expect(out).not.toContain(bare);
    expect(out).not.toContain(Buffer.from(bare).toString('base64'));
    expect(out).not.toContain(Buffer.from(bare).toString('hex'));
    expect(out.match(/\[REDACTED\]/g)).toHaveLength(4);
  });

  it('catches one line of a private key printed on its own', () => {
    const key = [
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      'QyNTUxOQAAACBq1m3fW4xY0k5Yy2m1E9Jbq2jv3n4F0q6sQm3sVYxq6QAAAJgAAAAAAAAA',
      '-----END OPENSSH PRIVATE KEY-----',
      '',
    ].join('\n');
    const out = scrub(`leaked: QyNTUxOQAAACBq1m3fW4xY0k5Yy2m1E9Jbq2jv3n4F0q6sQm3sVYxq6QAAAJgAAAAAAAAA done`, key);
    expect(out).toBe('leaked: [REDACTED] done');
  });

  it('never holds a fragment so short it would shred unrelated output', () => {
    const forms = sshSecretForms(Buffer.from('abcd\n'));
    expect(forms.every((f) => f.length >= 4)).toBe(true);
    expect(scrub('a b c d ab cd', 'abcd\n')).toBe('a b c d ab cd');
  });

  it('lists the longest forms first', () => {
    const forms = sshSecretForms(Buffer.from('a-password-of-some-length\n'));
    expect(forms).toEqual([...forms].sort((a, b) => b.length - a.length));
  });
});
