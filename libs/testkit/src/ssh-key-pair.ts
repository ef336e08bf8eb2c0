import ssh2 from 'ssh2';

/**
 * An ed25519 key pair in OpenSSH form that ssh2 itself can parse back. ssh2's
 * generator now and then emits a private key its own parser calls malformed
 * (about one in a few hundred), so a pair is checked and, rarely, made again.
 */
export function sshKeyPair(): { private: string; public: string } {
  for (let i = 0; i < 20; i++) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519');
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
  throw new Error('ssh2 produced no parsable ed25519 key in 20 tries');
}
