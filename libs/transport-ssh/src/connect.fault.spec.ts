import { createServer } from 'node:net';
import { CredentialType, SetupFailure, Stage } from '@postern/contract';
import { freePort, startHostileSshServer, type HostileSshServer, sshKeyPair } from '@postern/testkit';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSshConnection } from './connect.js';
import type { SshAuth, SshConnectOptions } from './types.js';

describe('openSshConnection', () => {
  let server: HostileSshServer;
  let otherServer: HostileSshServer;
  beforeAll(async () => {
    server = await startHostileSshServer();
    otherServer = await startHostileSshServer({ hostKey: 'other' });
  });
  afterAll(async () => {
    await server.close();
    await otherServer.close();
  });

  const options = (s: HostileSshServer, over: Partial<SshConnectOptions> = {}): SshConnectOptions => ({
    connectTimeoutMs: 3000,
    hostKeys: [s.hostKeyFingerprint],
    username: s.username,
    auth: { kind: CredentialType.ssh_password, password: s.password },
    ...over,
  });

  it('connects with a password, records every stage in order, and reports the host key', async () => {
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    try {
      expect(r.host_key_sha256).toBe(server.hostKeyFingerprint);
      expect(r.connection.hostKeySha256).toBe(server.hostKeyFingerprint);
      expect(r.connection.remoteAddress).toBe('127.0.0.1');
      expect(r.connection.alive).toBe(true);
      expect(r.stages.map((s) => [s.stage, s.ok])).toEqual([
        [Stage.tcp_connect, true],
        [Stage.ssh_handshake, true],
        [Stage.ssh_host_key, true],
        [Stage.ssh_auth, true],
      ]);
    } finally {
      await r.connection.close();
    }
    expect(r.connection.alive).toBe(false);
  });

  it('connects with a private key given as a string and as bytes', async () => {
    for (const privateKey of [server.clientKey.privateKey, new TextEncoder().encode(server.clientKey.privateKey)]) {
      const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { auth: { kind: CredentialType.ssh_key, privateKey } }));
      expect(r.ok).toBe(true);
      if (r.ok) await r.connection.close();
    }
  });

  it('accepts a pin written with base64 padding or surrounding spaces', async () => {
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { hostKeys: [`  ${server.hostKeyFingerprint}=  `] }));
    expect(r.ok).toBe(true);
    if (r.ok) await r.connection.close();
  });

  it('runs the injected lookup and records the dns stage', async () => {
    const asked: string[] = [];
    const r = await openSshConnection(
      { host: 'ssh.test.invalid', port: server.port },
      options(server, {
        lookup: async (host) => {
          asked.push(host);
          return [{ address: '127.0.0.1', family: 4 }];
        },
      }),
    );
    expect(asked).toEqual(['ssh.test.invalid']);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.stages[0]).toMatchObject({ stage: Stage.dns, ok: true });
    await r.connection.close();
  });

  it('refuses a host key that is not pinned, before any auth or effect', async () => {
    const authBefore = server.authenticated;
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { hostKeys: [server.otherHostKeyFingerprint] }));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_host_key, stage: Stage.ssh_host_key, host_key_sha256: server.hostKeyFingerprint });
    if (r.ok) return;
    expect(r.stages.map((s) => [s.stage, s.ok])).toEqual([
      [Stage.tcp_connect, true],
      [Stage.ssh_handshake, false],
      [Stage.ssh_host_key, false],
    ]);
    expect(server.authenticated).toBe(authBefore);
    expect(server.channelOpens).toBe(0);
  });

  it('refuses a server presenting a different host key than the one pinned', async () => {
    const r = await openSshConnection({ host: otherServer.host, port: otherServer.port }, options(otherServer, { hostKeys: [otherServer.hostKeyFingerprint] }));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_host_key, stage: Stage.ssh_host_key, host_key_sha256: otherServer.otherHostKeyFingerprint });
    expect(otherServer.authenticated).toBe(0);
    expect(otherServer.effects()).toBe(0);
  });

  it('refuses every host when no key is pinned', async () => {
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { hostKeys: [] }));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_host_key, stage: Stage.ssh_host_key });
  });

  it('ignores pins that are not SHA256 fingerprints', async () => {
    const md5Like = 'MD5:' + server.hostKeyFingerprint.slice('SHA256:'.length);
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { hostKeys: [md5Like, 'SHA256:', ''] }));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_host_key });
  });

  it('reports a wrong password as ssh_auth, without the password in the diagnostic', async () => {
    const password = 'not-the-password-7f3a';
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { auth: { kind: CredentialType.ssh_password, password } }));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_auth, stage: Stage.ssh_auth });
    if (r.ok) return;
    expect(r.diagnostic).toMatch(/^client-authentication/);
    expect(JSON.stringify(r)).not.toContain(password);
    expect(r.stages.at(-1)).toMatchObject({ stage: Stage.ssh_auth, ok: false });
  });

  it('reports a key the server does not know as ssh_auth', async () => {
    const stranger = sshKeyPair();
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { auth: { kind: CredentialType.ssh_key, privateKey: stranger.private } }));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_auth, stage: Stage.ssh_auth });
    if (r.ok) return;
    expect(JSON.stringify(r)).not.toContain('PRIVATE KEY');
  });

  it('reports an unknown user as ssh_auth', async () => {
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { username: 'nobody' }));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_auth });
  });

  it('reports an unparsable private key as ssh_auth without touching the network', async () => {
    const before = server.connections;
    const auth: SshAuth = { kind: CredentialType.ssh_key, privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n' };
    const r = await openSshConnection({ host: server.host, port: server.port }, options(server, { auth }));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_auth, stage: Stage.ssh_auth, diagnostic: 'private_key_unparsable', stages: [] });
    expect(server.connections).toBe(before);
  });

  it('reports a refused port as tcp_refused', async () => {
    const port = await freePort();
    const r = await openSshConnection({ host: '127.0.0.1', port }, options(server));
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.tcp_refused, stage: Stage.tcp_connect, diagnostic: 'ECONNREFUSED' });
  });

  it('reports ENOTFOUND from the lookup as dns_nxdomain and a SERVFAIL-like error as dns_temporary', async () => {
    const fail = (code: string) => async () => {
      throw Object.assign(new Error(code), { code });
    };
    const a = await openSshConnection({ host: 'nx.test.invalid', port: 22 }, options(server, { lookup: fail('ENOTFOUND') }));
    expect(a).toMatchObject({ ok: false, failure: SetupFailure.dns_nxdomain, stage: Stage.dns });
    const b = await openSshConnection({ host: 'nx.test.invalid', port: 22 }, options(server, { lookup: fail('EAI_AGAIN') }));
    expect(b).toMatchObject({ ok: false, failure: SetupFailure.dns_temporary, stage: Stage.dns });
    const c = await openSshConnection({ host: 'empty.test.invalid', port: 22 }, options(server, { lookup: async () => [] }));
    expect(c).toMatchObject({ ok: false, failure: SetupFailure.dns_nxdomain, stage: Stage.dns });
  });

  it('reports a server that never speaks SSH as ssh_kex after connectTimeoutMs', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const t0 = Date.now();
      const r = await openSshConnection({ host: '127.0.0.1', port: address.port }, options(server, { connectTimeoutMs: 300 }));
      expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_kex, stage: Stage.ssh_handshake });
      if (r.ok) return;
      expect(r.diagnostic).toMatch(/^client-timeout/);
      expect(Date.now() - t0).toBeLessThan(2500);
    } finally {
      silent.close();
    }
  });

  it('reports a server that speaks garbage and hangs up as ssh_kex', async () => {
    const rude = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((resolve) => rude.listen(0, '127.0.0.1', resolve));
    const address = rude.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const r = await openSshConnection({ host: '127.0.0.1', port: address.port }, options(server));
      expect(r).toMatchObject({ ok: false, failure: SetupFailure.ssh_kex, stage: Stage.ssh_handshake });
    } finally {
      rude.close();
    }
  });

  it('throws the abort error when the caller already aborted', async () => {
    const signal = AbortSignal.abort(new Error('stop'));
    await expect(openSshConnection({ host: server.host, port: server.port }, options(server, { signal }))).rejects.toMatchObject({
      name: 'SshConnectAbortedError',
    });
  });
});
