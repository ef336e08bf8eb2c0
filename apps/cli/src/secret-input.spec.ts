import { describe, expect, it } from 'vitest';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { asGiven, firstLine, readCredentialSecret, readPassphrase, withoutTrailingNewline } from './secret-input.js';

const text = (v: Uint8Array): string => Buffer.from(v).toString('utf8');
const zeroed = (b: Buffer): boolean => b.every((x) => x === 0);

function ctxWith(opts: { stdin?: Buffer; tty?: boolean; prompts?: string[] }): { ctx: Context; asked: string[]; given: Buffer[] } {
  const asked: string[] = [];
  const given: Buffer[] = [];
  const answers = [...(opts.prompts ?? [])];
  const ctx = {
    stdinIsTTY: opts.tty === true,
    readStdin: async () => {
      if (opts.stdin === undefined) throw new Error('stdin read unexpectedly');
      given.push(opts.stdin);
      return opts.stdin;
    },
    promptHidden: async (prompt: string) => {
      asked.push(prompt);
      const answer = answers.shift();
      if (answer === undefined) throw new UsageError('cancelled');
      const buf = Buffer.from(answer, 'utf8');
      given.push(buf);
      return buf;
    },
  } as unknown as Context;
  return { ctx, asked, given };
}

describe('stdin secret shapes', () => {
  it('takes the first line of a piped passphrase, without CR LF', () => {
    expect(text(firstLine(Buffer.from('pass phrase\r\nsecond\n')).value)).toBe('pass phrase');
    expect(text(firstLine(Buffer.from('no newline')).value)).toBe('no newline');
    expect(firstLine(Buffer.from('\nrest')).value).toHaveLength(0);
  });

  it('strips exactly one trailing newline from a secret', () => {
    expect(text(withoutTrailingNewline(Buffer.from('tok\n')).value)).toBe('tok');
    expect(text(withoutTrailingNewline(Buffer.from('tok\r\n')).value)).toBe('tok');
    expect(text(withoutTrailingNewline(Buffer.from('tok\n\n')).value)).toBe('tok\n');
    expect(text(withoutTrailingNewline(Buffer.from(' tok ')).value)).toBe(' tok ');
  });

  it('keeps a key file byte for byte', () => {
    const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n';
    expect(text(asGiven(Buffer.from(pem)).value)).toBe(pem);
  });

  it('wipes everything that was read, not only the part kept', () => {
    const backing = Buffer.from('secret\nmore');
    const s = firstLine(backing);
    s.wipe();
    expect(zeroed(backing)).toBe(true);
  });
});

describe('readPassphrase', () => {
  it('reads the first line of piped stdin and never prompts', async () => {
    const { ctx, asked } = ctxWith({ stdin: Buffer.from('hunter2\n') });
    const p = await readPassphrase(ctx, { confirm: true });
    expect(text(p.value)).toBe('hunter2');
    expect(asked).toEqual([]);
  });

  it('refuses an empty or blank passphrase, wiping it', async () => {
    const { ctx, given } = ctxWith({ stdin: Buffer.from(' \t\n') });
    await expect(readPassphrase(ctx, { confirm: false })).rejects.toThrow('the passphrase is empty');
    expect(zeroed(given[0] as Buffer)).toBe(true);
    await expect(readPassphrase(ctxWith({ stdin: Buffer.alloc(0) }).ctx, { confirm: false })).rejects.toThrow(UsageError);
  });

  it('asks once on a terminal to unlock, twice to init, and compares the two', async () => {
    const unlock = ctxWith({ tty: true, prompts: ['pw'] });
    expect(text((await readPassphrase(unlock.ctx, { confirm: false })).value)).toBe('pw');
    expect(unlock.asked).toEqual(['vault passphrase: ']);

    const init = ctxWith({ tty: true, prompts: ['pw', 'pw'] });
    expect(text((await readPassphrase(init.ctx, { confirm: true })).value)).toBe('pw');
    expect(init.asked).toEqual(['vault passphrase: ', 'repeat the passphrase: ']);
    expect(zeroed(init.given[1] as Buffer)).toBe(true);

    const typo = ctxWith({ tty: true, prompts: ['pw', 'pv'] });
    await expect(readPassphrase(typo.ctx, { confirm: true })).rejects.toThrow('the two passphrases differ');
    expect(typo.given.every(zeroed)).toBe(true);
  });
});

describe('readCredentialSecret', () => {
  it('reads all of piped stdin less one newline, or a key file as given', async () => {
    const token = await readCredentialSecret(ctxWith({ stdin: Buffer.from('line1\nline2\n') }).ctx, { id: 'k', keepAsGiven: false });
    expect(text(token.value)).toBe('line1\nline2');
    const key = await readCredentialSecret(ctxWith({ stdin: Buffer.from('PEM\n') }).ctx, { id: 'k', keepAsGiven: true });
    expect(text(key.value)).toBe('PEM\n');
  });

  it('prompts without echo on a terminal, but refuses a key file there', async () => {
    const t = ctxWith({ tty: true, prompts: ['tok'] });
    expect(text((await readCredentialSecret(t.ctx, { id: 'api', keepAsGiven: false })).value)).toBe('tok');
    expect(t.asked).toEqual(['secret for api: ']);
    await expect(readCredentialSecret(ctxWith({ tty: true }).ctx, { id: 'k', keepAsGiven: true })).rejects.toThrow('pipe it on stdin');
  });

  it('refuses an empty secret', async () => {
    await expect(readCredentialSecret(ctxWith({ stdin: Buffer.from('\n') }).ctx, { id: 'k', keepAsGiven: false })).rejects.toThrow(
      'the secret is empty',
    );
  });
});
