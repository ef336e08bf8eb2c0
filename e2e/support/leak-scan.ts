import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningStack } from './running-stack.js';

/** The forms a secret may take when something leaks it. */
export function leakForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [
    secret,
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    encodeURIComponent(secret),
  ];
}

export interface Place {
  where: string;
  bytes: Buffer;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Everything the broker kept: every journal message with its headers, every
 * KV value, every stored object, every file under POSTERN_HOME (logs, read
 * model, vault) and the read API's answers.
 */
export async function everythingStored(stack: RunningStack): Promise<Place[]> {
  const places: Place[] = [];
  const { jsm, names } = stack.res;
  const info = await jsm.streams.info(names.stream);
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const msg = await jsm.streams.getMessage(names.stream, { seq }).catch(() => null);
    if (!msg) continue;
    places.push({ where: `journal #${seq}`, bytes: Buffer.concat([Buffer.from(msg.data), Buffer.from(JSON.stringify(msg.header ? [...msg.header] : []))]) });
  }
  for (const [bucket, kv] of Object.entries(stack.res.kv)) {
    for await (const key of await kv.keys()) {
      const entry = await kv.get(key);
      if (entry) places.push({ where: `kv ${bucket}/${key}`, bytes: Buffer.from(entry.value) });
    }
  }
  for (const [name, store] of Object.entries(stack.res.objects)) {
    for (const object of await store.list()) {
      const data = await store.getBlob(object.name);
      if (data) places.push({ where: `object ${name}/${object.name}`, bytes: Buffer.from(data) });
    }
  }
  for (const file of filesUnder(stack.home)) places.push({ where: file, bytes: readFileSync(file) });
  const list = await stack.api('/v1/invocations?limit=500');
  places.push({ where: 'read API list', bytes: Buffer.from(JSON.stringify(list.body)) });
  for (const view of list.body.invocations ?? []) {
    const events = await stack.api(`/v1/invocations/${view.invocation_id}/events`);
    places.push({ where: `read API events ${view.invocation_id}`, bytes: Buffer.from(JSON.stringify(events.body)) });
    const result = await stack.request('results.fetch', { invocation_id: view.invocation_id });
    places.push({ where: `result ${view.invocation_id}`, bytes: Buffer.from(JSON.stringify(result)) });
  }
  return places;
}

/** The forms a binary secret (a private key's raw bytes) may take when leaked. */
export function byteLeakForms(secret: Uint8Array): Buffer[] {
  const bytes = Buffer.from(secret);
  return [bytes, ...[bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), bytes.toString('hex').toUpperCase()].map((f) => Buffer.from(f))];
}

function readSshString(buf: Buffer, at: number): { value: Buffer; next: number } {
  if (at + 4 > buf.length) throw new Error('truncated OpenSSH key');
  const len = buf.readUInt32BE(at);
  if (at + 4 + len > buf.length) throw new Error('truncated OpenSSH key');
  return { value: buf.subarray(at + 4, at + 4 + len), next: at + 4 + len };
}

/**
 * What of an unencrypted OpenSSH private key would betray it: the armoured
 * body lines past the first (the first is the same for every such key), and
 * the private key bytes themselves (for ed25519, seed and public half).
 */
export function opensshKeySecrets(privateKey: string): { lines: string[]; privateBytes: Buffer } {
  const body = privateKey
    .split(/\r?\n/)
    .filter((l) => l.length > 0 && !l.startsWith('-----'));
  const blob = Buffer.from(body.join(''), 'base64');
  const magic = Buffer.from('openssh-key-v1\0');
  if (!blob.subarray(0, magic.length).equals(magic)) throw new Error('not an OpenSSH private key');
  let at = magic.length;
  at = readSshString(blob, at).next; // cipher
  at = readSshString(blob, at).next; // kdf
  at = readSshString(blob, at).next; // kdf options
  at += 4; // number of keys
  at = readSshString(blob, at).next; // public key
  const section = readSshString(blob, at).value;
  let p = 8; // two check integers
  p = readSshString(section, p).next; // key type
  p = readSshString(section, p).next; // public half
  const privateBytes = Buffer.from(readSshString(section, p).value);
  return { lines: body.slice(1).filter((l) => l.length >= 40), privateBytes };
}

/** `where: form` for each place that holds any form of any secret. */
export function leaks(places: Place[], secrets: (string | Uint8Array)[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    const forms = typeof secret === 'string' ? leakForms(secret).map((f) => Buffer.from(f)) : byteLeakForms(secret);
    for (const needle of forms) {
      for (const place of places) {
        if (place.bytes.includes(needle)) found.push(`${place.where}: ${typeof secret === 'string' ? needle.toString() : `<${needle.length} bytes of a binary secret>`}`);
      }
    }
  }
  return found;
}
