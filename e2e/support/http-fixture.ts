import {
  freePort,
  startConnectProxy,
  startHostileDnsServer,
  startHostileHttpServer,
  testCertificates,
  type ConnectProxy,
  type HostileDnsServer,
  type HostileHttpServer,
} from '@postern/testkit';
import { RunningStack } from './running-stack.js';

export const CANARY = 'canary-Zq7x-5e1f-secret';

/**
 * The whole broker against hostile HTTP servers on 127.0.0.1: a plain one, one
 * whose target declares an idempotency contract, TLS ones with a trusted, a
 * wrong-host and a self-signed certificate, a DNS server of its own, one
 * whose target follows same-origin redirects, and targets reached through an
 * accepting and a refusing CONNECT proxy.
 */
export class HttpFixture {
  private constructor(
    readonly stack: RunningStack,
    readonly plain: HostileHttpServer,
    readonly contract: HostileHttpServer,
    readonly tls: HostileHttpServer,
    readonly wrongHost: HostileHttpServer,
    readonly selfSigned: HostileHttpServer,
    readonly dns: HostileDnsServer,
    readonly redirecting: HostileHttpServer,
    readonly proxied: HostileHttpServer,
    readonly proxy: ConnectProxy,
    readonly refusingProxy: ConnectProxy,
    /** A port nothing listens on, reached only through the refusing proxy. */
    readonly behindRefusingProxy: number,
  ) {}

  /**
   * `autoRetry` and `budget` set the policy's `dispatch.auto_retry` and
   * `dispatch.budget` (defaults: off, as the policy has it, and 5);
   * `responseBodyBytes` the plain server's `limits.response_body_bytes`
   * (default 65536); `responseTimeoutMs` the targets' `response_headers`
   * and `body` timeouts (default 1500 each); `natsArgs` go to the
   * nats-server; `services` are the ones started at once (default all five).
   */
  static async start(
    options: {
      prefix?: string;
      env?: Record<string, string>;
      leaseMs?: number;
      autoRetry?: boolean;
      budget?: number;
      responseBodyBytes?: number;
      responseTimeoutMs?: number;
      natsArgs?: string[];
      services?: string[];
    } = {},
  ): Promise<HttpFixture> {
    const plain = await startHostileHttpServer();
    const contract = await startHostileHttpServer();
    const tls = await startHostileHttpServer({ tls: true });
    const wrongHost = await startHostileHttpServer({ tls: true, certificate: 'wrong-host' });
    const selfSigned = await startHostileHttpServer({ tls: true, certificate: 'self-signed' });
    const dns = await startHostileDnsServer({ addresses: { 'api.postern.test': '127.0.0.1' } });
    const redirecting = await startHostileHttpServer();
    const proxied = await startHostileHttpServer();
    const proxy = await startConnectProxy();
    const refusingProxy = await startConnectProxy({ refuseWith: 403 });
    const behindRefusingProxy = await freePort();
    const responseMs = options.responseTimeoutMs ?? 1500;
    const timeouts = `{connect: 2000, response_headers: ${responseMs}, body: ${responseMs}}`;
    const limits = `{response_body_bytes: ${options.responseBodyBytes ?? 65536}, response_read_bytes: 1048576}`;
    const policy = `
targets:
  - match: "http://127.0.0.1:${contract.port}"
    idempotency: {header: Idempotency-Key, scope: e2e.payments, retention_s: 86400, margin_s: 3600}
    timeouts_ms: ${timeouts}
    limits: ${limits}
  - match: "http://127.0.0.1:${redirecting.port}"
    redirects: same_origin
    retry_safe_methods: [GET, HEAD]
    timeouts_ms: ${timeouts}
    limits: ${limits}
  - match: "http://127.0.0.1:${proxied.port}"
    proxy: "http://127.0.0.1:${proxy.port}"
    timeouts_ms: ${timeouts}
    limits: ${limits}
  - match: "http://127.0.0.1:${behindRefusingProxy}"
    proxy: "http://127.0.0.1:${refusingProxy.port}"
    timeouts_ms: ${timeouts}
  - match: "http://127.0.0.1:*"
    retry_safe_methods: [GET, HEAD]
    timeouts_ms: ${timeouts}
    limits: ${limits}
  - match: "http://api.postern.test:*"
    timeouts_ms: ${timeouts}
  - match: "http://nowhere.postern.test:*"
  - match: "http://255.255.255.255:*"
  - match: "http://servfail.postern.test:*"
  - match: "https://localhost:*"
    ca_file: "${testCertificates().ca}"
    timeouts_ms: ${timeouts}
dispatch:
  connect_attempts: 2
  budget: ${options.budget ?? 5}
  lease_ms: ${options.leaseMs ?? 3000}
${options.autoRetry === undefined ? '' : `  auto_retry: ${options.autoRetry}\n`}`;
    const stack = await RunningStack.start({
      prefix: options.prefix ?? 'e2ehttp',
      services: options.services ?? ['credential', 'intake', 'dispatcher', 'delivery', 'projector'],
      env: { POSTERN_VAULT_PASSPHRASE: 'e2e passphrase, test only', POSTERN_DNS_SERVERS: dns.address, ...options.env },
      policy,
      ...(options.natsArgs === undefined ? {} : { natsArgs: options.natsArgs }),
    });
    const fixture = new HttpFixture(stack, plain, contract, tls, wrongHost, selfSigned, dns, redirecting, proxied, proxy, refusingProxy, behindRefusingProxy);
    await fixture.putCredential('local-api', 'http_bearer', ['http://127.0.0.1:*', 'http://api.postern.test:*', 'http://nowhere.postern.test:*', 'http://servfail.postern.test:*', 'http://255.255.255.255:*', 'https://localhost:*'], CANARY);
    return fixture;
  }

  async putCredential(id: string, type: string, scopes: string[], secret: string, extra: string[] = []): Promise<void> {
    const args = ['credential', 'put', id, '--type', type, ...scopes.flatMap((s) => ['--scope', s]), ...extra];
    const deadline = Date.now() + 15_000;
    let last = { code: -1, stdout: '', stderr: '' };
    // The credential service may still be opening the vault right after start.
    for (let i = 0; i < 30 && Date.now() < deadline; i++) {
      last = await this.stack.cli(args, `${secret}\n`);
      if (last.code === 0) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    if (last.code !== 0) throw new Error(`credential put failed: ${last.stderr}${last.stdout}`);
    // Intake reads the metadata from KV: wait until it is there.
    for (let i = 0; i < 50; i++) {
      const entry = await this.stack.res.kv.credentials.get(id);
      if (entry?.value?.length) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('credential metadata never reached KV');
  }

  /** Submits and waits for the broker's last word (bounded). */
  async run(command: Record<string, unknown>): Promise<any> {
    const submitted = await this.stack.request('actions.submit', command);
    if (!submitted.invocation_id) return submitted;
    return this.awaitResolved(submitted.invocation_id);
  }

  async awaitResolved(id: string, timeoutMs = 20_000): Promise<any> {
    const view = await this.stack.request('actions.await', { invocation_id: id, timeout_ms: timeoutMs }, timeoutMs + 5_000);
    return view;
  }

  async stop(): Promise<void> {
    await this.stack.stop();
    await Promise.all([this.plain, this.contract, this.tls, this.wrongHost, this.selfSigned, this.redirecting, this.proxied].map((s) => s.close()));
    await Promise.all([this.proxy, this.refusingProxy].map((p) => p.close()));
    await this.dns.close();
  }
}
