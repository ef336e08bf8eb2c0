import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { JournalUnavailableError } from './errors.js';
import { journalNames, type JournalNames } from './names.js';

export interface JournalResources {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  kv: { requests: KV; idempotency: KV; leases: KV; credentials: KV };
  objects: { results: ObjectStore; payloads: ObjectStore };
  names: JournalNames;
}

export interface EnsureJournalOptions {
  /** Bound on each JetStream API request made through the returned handles (default 5000 ms). */
  apiTimeoutMs?: number;
}

// Long enough to cover a publisher's bounded re-publish after a lost PubAck.
const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;

function desiredStream(names: JournalNames): Partial<StreamConfig> & { name: string } {
  return {
    name: names.stream,
    subjects: [names.eventSubjects],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: 0,
    max_msgs: -1,
    max_bytes: -1,
    max_msgs_per_subject: -1,
    deny_delete: true,
    deny_purge: true,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
  };
}

// Only what makes the journal a journal: an operator may tune the rest.
function needsUpdate(info: StreamInfo, want: ReturnType<typeof desiredStream>): boolean {
  const c = info.config;
  return (
    c.deny_delete !== true ||
    c.deny_purge !== true ||
    c.max_age !== 0 ||
    c.max_msgs_per_subject > 0 ||
    c.duplicate_window < (want.duplicate_window ?? 0) ||
    !(want.subjects ?? []).every((s) => c.subjects?.includes(s))
  );
}

async function ensureStream(jsm: JetStreamManager, names: JournalNames): Promise<void> {
  const want = desiredStream(names);
  let info: StreamInfo | null = null;
  try {
    info = await jsm.streams.info(names.stream);
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
  }
  if (info === null) {
    try {
      await jsm.streams.add(want);
      return;
    } catch (err) {
      // Another service created it first; fall through to check its settings.
      info = await jsm.streams.info(names.stream).catch(() => {
        throw err;
      });
    }
  }
  if (needsUpdate(info, want)) {
    const { name: _name, storage: _storage, retention: _retention, ...update } = want;
    await jsm.streams.update(names.stream, { ...info.config, ...update, subjects: mergeSubjects(info, want) });
  }
}

function mergeSubjects(info: StreamInfo, want: ReturnType<typeof desiredStream>): string[] {
  return Array.from(new Set([...(info.config.subjects ?? []), ...(want.subjects ?? [])]));
}

/**
 * Creates (or finds) the journal stream, the KV buckets and the object stores
 * of one prefix. Safe to call from every service at every start.
 */
export async function ensureJournal(
  nc: NatsConnection,
  prefix: string,
  opts: EnsureJournalOptions = {},
): Promise<JournalResources> {
  const names = journalNames(prefix);
  const timeout = opts.apiTimeoutMs ?? 5_000;
  try {
    const jsm = await jetstreamManager(nc, { timeout });
    const js = jetstream(nc, { timeout });
    await ensureStream(jsm, names);
    const kvm = new Kvm(js);
    const objm = new Objm(js);
    const bucket = (name: string): Promise<KV> => kvm.create(name, { history: 1, storage: StorageType.File });
    const store = (name: string): Promise<ObjectStore> => objm.create(name, { storage: StorageType.File });
    const [requests, idempotency, leases, credentials, results, payloads] = await Promise.all([
      bucket(names.kv.requests),
      bucket(names.kv.idempotency),
      bucket(names.kv.leases),
      bucket(names.kv.credentials),
      store(names.objects.results),
      store(names.objects.payloads),
    ]);
    return {
      nc,
      js,
      jsm,
      kv: { requests, idempotency, leases, credentials },
      objects: { results, payloads },
      names,
    };
  } catch (err) {
    throw new JournalUnavailableError(`could not set up the journal for prefix ${prefix}`, { cause: err });
  }
}
