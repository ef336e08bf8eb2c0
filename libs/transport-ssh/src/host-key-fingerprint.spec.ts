import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import { normalizeHostKeyPin, parsePrivateKey, sshHostKeyFingerprint, sshKeyFingerprint } from './host-key-fingerprint.js';
import { sshKeyPair } from '@postern/testkit';

// A fixed ed25519 public key (test-only) and its fingerprint as `ssh-keygen -lf` prints it.
const PUBLIC_LINE = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHipoFhbTLmb/X2pNKzSFbjXdFWcuvtb/Na0ZTrQn2eD test';
const EXPECTED = 'SHA256:f8mOjTO07ipRZc9z1FhP+JUxqHgZY6zBMq19wm+n5AE';

describe('SSH key fingerprints', () => {
  it('hashes the wire blob as SHA256 with unpadded base64', () => {
    const blob = Buffer.from(PUBLIC_LINE.split(' ')[1] ?? '', 'base64');
    const fp = sshHostKeyFingerprint(blob);
    expect(fp).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(fp).toBe(EXPECTED);
  });

  it('gives the same fingerprint from a public key line and from the private key', () => {
    const pair = sshKeyPair();
    expect(sshKeyFingerprint(pair.public)).toBe(sshKeyFingerprint(pair.private));
    expect(parsePrivateKey(pair.private)).toEqual({ type: 'ssh-ed25519', publicKeySha256: sshKeyFingerprint(pair.public) });
  });

  it('refuses a public key or garbage as a private key, without echoing it', () => {
    expect(() => parsePrivateKey(PUBLIC_LINE)).toThrow(expect.objectContaining({ name: 'InvalidSshKeyError' }));
    expect(() => parsePrivateKey('hunter2')).toThrow('SSH key could not be parsed');
  });

  it('normalises pins and drops ones that are not SHA256', () => {
    expect(normalizeHostKeyPin(' SHA256:abc= ')).toBe('SHA256:abc');
    expect(normalizeHostKeyPin('SHA256:')).toBeNull();
    expect(normalizeHostKeyPin('MD5:aa:bb')).toBeNull();
  });
});
