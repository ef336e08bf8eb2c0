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

/** `where: form` for each place that holds any form of any secret. */
export function leaks(places: Place[], secrets: string[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (const form of leakForms(secret)) {
      const needle = Buffer.from(form);
      for (const place of places) if (place.bytes.includes(needle)) found.push(`${place.where}: ${form}`);
    }
  }
  return found;
}
