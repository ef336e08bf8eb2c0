import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, EventType, Outcome, Retry, Stage } from '@postern/contract';
import {
  startHostileHttpServer,
  startNatsServer,
  testCertificates,
  type HostileHttpServer,
  type NatsServerHandle,
} from '@postern/testkit';
import { CANARY, DispatcherHarness, lastOf, ofType, policyYaml, resolved } from './dispatcher-test-harness.js';

/** HTTPS targets: the policy's `ca_file` is the only extra trust, and a rejected certificate is final at once. */
describe('dispatcher over TLS', () => {
  let nats: NatsServerHandle;
  let h: DispatcherHarness;
  let good: HostileHttpServer;
  let wrongHost: HostileHttpServer;
  let selfSigned: HostileHttpServer;

  beforeAll(async () => {
    nats = await startNatsServer();
    good = await startHostileHttpServer({ tls: true });
    wrongHost = await startHostileHttpServer({ tls: true, certificate: 'wrong-host' });
    selfSigned = await startHostileHttpServer({ tls: true, certificate: 'self-signed' });
    const extra = `  - match: "https://127.0.0.1:*"
    timeouts_ms: {connect: 2000, response_headers: 2000, body: 2000}
    ca_file: "${testCertificates().ca}"
`;
    h = await DispatcherHarness.start(nats.url, policyYaml({ extra }));
    await h.startDispatcher();
  });
  afterAll(async () => {
    await h?.close();
    for (const s of [good, wrongHost, selfSigned]) await s?.close();
    await nats?.stop();
  });

  it('commits over TLS verified with the policy CA and records the peer certificate digest', async () => {
    const before = good.requests.length;
    const id = await h.submit({ url: `${good.origin}/status/200` });
    const history = await h.waitFor(id, resolved);
    expect(lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE).data).toMatchObject({ outcome: Outcome.committed, response_status: 200 });
    const connection = lastOf(history, EventType.DISPATCH_STARTED).data['connection'] as Record<string, unknown>;
    expect(typeof connection['tls_peer_sha256']).toBe('string');
    expect(good.requests.slice(before).some((r) => r.headers['authorization'] === `Bearer ${CANARY}`)).toBe(true);
  });

  it.each([
    ['a certificate for another name', () => wrongHost],
    ['a self-signed certificate', () => selfSigned],
  ])('refuses %s once, with TLS_CERT_REJECTED, before anything is sent', async (_name, server) => {
    const s = server();
    const id = await h.submit({ url: `${s.origin}/status/200` });
    const history = await h.waitFor(id, resolved);
    const failures = ofType(history, EventType.CONNECTION_FAILED);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.data).toMatchObject({ connect_try: 1, stage: Stage.tls_handshake, code: Code.TLS_CERT_REJECTED, retry_rule: Retry.after_correction, final: true });
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(0);
    expect(s.effects()).toBe(0);
  });
});
