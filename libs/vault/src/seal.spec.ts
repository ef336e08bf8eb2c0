import { describe, expect, it } from 'vitest';
import { SealError } from './errors.js';
import {
  generateSealKeyPair,
  openSealed,
  parsePublicKey,
  publicKeyBase64,
  sealKeyPairFromPrivate,
  sealTo,
} from './seal.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('sealing', () => {
  it('round-trips a value sealed to a public key', () => {
    const kp = generateSealKeyPair();
    const sealed = sealTo(kp.publicKey, text('s3cr3t-value'));
    expect(Buffer.from(openSealed(kp, sealed)).toString('utf8')).toBe('s3cr3t-value');
  });

  it('round-trips an empty and a large plaintext', () => {
    const kp = generateSealKeyPair();
    expect(openSealed(kp, sealTo(kp.publicKey, new Uint8Array(0))).length).toBe(0);
    const big = new Uint8Array(100_000).map((_, i) => i % 251);
    expect(Buffer.from(openSealed(kp, sealTo(kp.publicKey, big))).equals(Buffer.from(big))).toBe(true);
  });

  it('has the documented layout: ephemeral(32) nonce(12) ciphertext tag(16)', () => {
    const kp = generateSealKeyPair();
    const raw = Buffer.from(sealTo(kp.publicKey, text('abcde')), 'base64');
    expect(raw.length).toBe(32 + 12 + 5 + 16);
  });

  it('produces a fresh ephemeral key and nonce each time', () => {
    const kp = generateSealKeyPair();
    expect(sealTo(kp.publicKey, text('x'))).not.toBe(sealTo(kp.publicKey, text('x')));
  });

  it('fails to open with another key pair', () => {
    const a = generateSealKeyPair();
    const b = generateSealKeyPair();
    const sealed = sealTo(a.publicKey, text('for a only'));
    expect(() => openSealed(b, sealed)).toThrow(SealError);
  });

  it('fails on any tampered byte', () => {
    const kp = generateSealKeyPair();
    const raw = Buffer.from(sealTo(kp.publicKey, text('tamper me')), 'base64');
    for (const index of [0, 33, 32 + 12, raw.length - 1]) {
      const copy = Buffer.from(raw);
      copy[index] = copy[index]! ^ 0x01;
      expect(() => openSealed(kp, copy.toString('base64')), `byte ${index}`).toThrow(SealError);
    }
  });

  it('rejects malformed input without echoing it', () => {
    const kp = generateSealKeyPair();
    for (const bad of ['', 'not base64 !!', 'AAAA', Buffer.alloc(59).toString('base64')]) {
      try {
        openSealed(kp, bad);
        expect.unreachable('should throw');
      } catch (error) {
        expect(error).toBeInstanceOf(SealError);
        if (bad.length > 4) expect((error as Error).message).not.toContain(bad);
      }
    }
    expect(() => openSealed(kp, 42 as unknown as string)).toThrow(SealError);
  });

  it('exports and parses a raw 32-byte public key in standard base64', () => {
    const kp = generateSealKeyPair();
    const b64 = publicKeyBase64(kp);
    expect(Buffer.from(b64, 'base64').length).toBe(32);
    expect(Buffer.from(parsePublicKey(b64)).equals(Buffer.from(kp.publicKey))).toBe(true);
  });

  it('refuses public keys of the wrong length or encoding', () => {
    expect(() => parsePublicKey(Buffer.alloc(31).toString('base64'))).toThrow(SealError);
    expect(() => parsePublicKey(Buffer.alloc(33).toString('base64'))).toThrow(SealError);
    expect(() => parsePublicKey('@@@')).toThrow(SealError);
    expect(() => sealTo(new Uint8Array(16), text('x'))).toThrow(SealError);
  });

  it('rebuilds the pair from its private key', () => {
    const kp = generateSealKeyPair();
    const again = sealKeyPairFromPrivate(kp.privateKey);
    expect(Buffer.from(again.publicKey).equals(Buffer.from(kp.publicKey))).toBe(true);
    expect(Buffer.from(openSealed(again, sealTo(kp.publicKey, text('ok')))).toString()).toBe('ok');
  });
});
