import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { connectNats } from './connect.js';
import { ensureJournal } from './ensure-journal.js';

describe('ensureJournal', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connectNats({ servers: server.url, name: 'ensure-journal-test' });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('creates the stream, buckets and object stores named from the prefix', async () => {
    const res = await ensureJournal(nc, 'alpha');
    const info = await res.jsm.streams.info('ALPHA_EVENTS');
    expect(info.config.subjects).toEqual(['alpha.v1.evt.>']);
    expect(info.config.deny_delete).toBe(true);
    expect(info.config.deny_purge).toBe(true);
    expect(info.config.max_age).toBe(0);
    expect(info.config.storage).toBe('file');
    expect(info.config.discard).toBe('old');
    expect(info.config.duplicate_window).toBe(2 * 60 * 1_000_000_000);

    const streams: string[] = [];
    for await (const s of res.jsm.streams.names()) streams.push(s);
    expect(streams.sort()).toEqual(
      [
        'ALPHA_EVENTS',
        'KV_alpha_credentials',
        'KV_alpha_idempotency',
        'KV_alpha_leases',
        'KV_alpha_requests',
        'OBJ_alpha_payloads',
        'OBJ_alpha_results',
      ].sort(),
    );
    expect(res.names.kv.requests).toBe('alpha_requests');
    expect((await res.kv.leases.status()).bucket).toBe('alpha_leases');
    expect((await res.objects.results.status()).bucket).toBe('alpha_results');
  });

  it('is idempotent: a second call succeeds and changes nothing', async () => {
    const first = await ensureJournal(nc, 'beta');
    await first.js.publish('beta.v1.evt.act_x', '{}');
    const before = await first.jsm.streams.info('BETA_EVENTS');
    const second = await ensureJournal(nc, 'beta');
    const after = await second.jsm.streams.info('BETA_EVENTS');
    expect(after.config).toEqual(before.config);
    expect(after.created).toEqual(before.created);
    expect(after.state.messages).toBe(1);
  });

  it('refuses deleting or purging journal messages', async () => {
    const res = await ensureJournal(nc, 'gamma');
    const ack = await res.js.publish('gamma.v1.evt.act_y', '{}');
    const del = await res.jsm.streams.deleteMessage('GAMMA_EVENTS', ack.seq).then(
      () => null,
      (e: unknown) => e,
    );
    expect(del).toBeInstanceOf(JetStreamApiError);
    expect(String(del)).toMatch(/not permitted/);
    const purge = await res.jsm.streams.purge('GAMMA_EVENTS').then(
      () => null,
      (e: unknown) => e,
    );
    expect(purge).toBeInstanceOf(JetStreamApiError);
    expect(String(purge)).toMatch(/not permitted/);
    expect((await res.jsm.streams.info('GAMMA_EVENTS')).state.messages).toBe(1);
  });

  it('repairs a stream created without deny_delete / deny_purge', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'DELTA_EVENTS', subjects: ['delta.v1.evt.>'], deny_delete: false, deny_purge: false });
    await jetstream(nc).publish('delta.v1.evt.act_z', '{}');
    await ensureJournal(nc, 'delta');
    const info = await jsm.streams.info('DELTA_EVENTS');
    expect(info.config.deny_delete).toBe(true);
    expect(info.config.deny_purge).toBe(true);
    expect(info.state.messages).toBe(1);
  });

  it('keeps two prefixes on one server apart', async () => {
    const a = await ensureJournal(nc, 'one');
    const b = await ensureJournal(nc, 'two');
    await a.js.publish('one.v1.evt.act_1', '{}');
    await a.kv.requests.put('k', 'v');
    expect((await b.jsm.streams.info('TWO_EVENTS')).state.messages).toBe(0);
    expect(await b.kv.requests.get('k')).toBeNull();
    expect((await a.jsm.streams.info('ONE_EVENTS')).state.messages).toBe(1);
  });

  it('rejects a prefix that would escape its subject token', async () => {
    await expect(ensureJournal(nc, 'bad.prefix')).rejects.toThrow(/prefix/);
  });
});
