import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { Code, Outcome, Phase, Retry, Stage, Status, subjects } from '@postern/contract';
import { freePort, startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { generateSealKeyPair, openSealed, publicKeyBase64, type SealKeyPair } from '@postern/vault';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const bin = join(repo, 'apps', 'cli', 'bin', 'postern.js');
const PREFIX = 'clitest';
const AWAIT_PREFIX = 'cliawait';
const BADKEY_PREFIX = 'clibadkey';
const LOCKED_PREFIX = 'clilocked';
const RUN_TIMEOUT_MS = 20_000;

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], opts: { env?: Record<string, string>; stdin?: string } = {}): Promise<RunResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: repo,
      env: { ...process.env, NATS_URL: nats.url, POSTERN_PREFIX: PREFIX, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`postern ${args.join(' ')} did not exit within ${RUN_TIMEOUT_MS} ms; stderr: ${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}

function buildCli(): Promise<void> {
  return new Promise((resolveBuild, reject) => {
    const child = spawn(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'apps/cli'], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolveBuild();
      else reject(new Error(`tsc -b apps/cli failed (${code}):\n${output}`));
    });
  });
}

function record(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    invocation_id: id,
    client_request_id: `req-${id}`,
    status: Status.resolved,
    outcome: Outcome.committed,
    cancelled: false,
    delivered: false,
    error: null,
    result: { result_digest: 'sha256:abc' },
    evidence: { source: 'remote_response', stage: Stage.response_body, attempt: 1 },
    attempts: [],
    journal: { first_seq: 1, last_seq: 6, events: 6 },
    ...over,
  };
}

const forbiddenHeader = {
  code: Code.FORBIDDEN_HEADER,
  phase: Phase.validation,
  outcome: Outcome.not_attempted,
  retry: Retry.after_correction,
  message: 'The request sets a header that only the broker may set.',
  field: 'http.headers.authorization',
};
const notFound = { code: Code.NOT_FOUND, phase: Phase.validation, outcome: Outcome.not_attempted, retry: Retry.never, message: 'No such invocation.' };

const bigBody = Buffer.from('0123456789'.repeat(50) + 'tail', 'utf8');
const parts = [bigBody.subarray(0, 300), bigBody.subarray(300)];
const sha = (b: Uint8Array): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

let nats: NatsServerHandle;
let nc: NatsConnection;
const received: Record<string, unknown[]> = {};
/** Every request body exactly as it crossed the bus, to prove no plaintext was in it. */
const rawRequests: string[] = [];

// The stand-in credential service: a real key pair, and what it opened.
let serviceKeys: SealKeyPair;
const opened: Record<string, string[]> = {};
let vaultState = 'uninitialized';
let vaultPassphrase: string | null = null;
const stored = new Map<string, Record<string, unknown>>();

/** Every form the CONTRACT forbids a secret to appear in. */
function encodings(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  return [secret, b.toString('base64'), b.toString('base64url'), b.toString('hex'), encodeURIComponent(secret)];
}

function expectNowhere(secret: string, ...texts: string[]): void {
  for (const text of [...texts, ...rawRequests]) {
    for (const form of encodings(secret)) expect(text).not.toContain(form);
  }
}

function open(kind: string, sealed: unknown): string | null {
  if (typeof sealed !== 'string') return null;
  try {
    const text = Buffer.from(openSealed(serviceKeys, sealed)).toString('utf8');
    (opened[kind] ??= []).push(text);
    return text;
  } catch {
    return null;
  }
}

const vaultError = (code: string, message: string): unknown => ({
  error: { code, phase: Phase.credential_injection, outcome: Outcome.not_attempted, retry: Retry.after_correction, message },
});

function serve(subject: string, handle: (body: Record<string, unknown>, msg: Msg) => unknown): void {
  nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err !== null) return;
      let body: Record<string, unknown>;
      try {
        body = msg.json<Record<string, unknown>>();
      } catch {
        msg.respond(JSON.stringify({ error: { ...notFound, code: Code.BAD_REQUEST, retry: Retry.after_correction } }));
        return;
      }
      (received[subject] ??= []).push(body);
      rawRequests.push(msg.string());
      const reply = handle(body, msg);
      if (reply !== undefined) msg.respond(JSON.stringify(reply));
    },
  });
}

beforeAll(async () => {
  await buildCli();
  nats = await startNatsServer({ jetstream: false });
  nc = await connect({ servers: nats.url });
  const s = subjects(PREFIX);
  let pendingGets = 0;
  serve(s.actionsSubmit, (cmd) => {
    switch (cmd.client_request_id) {
      case 'ok':
        return record('act_ok');
      case 'bad':
        return record('act_bad', { outcome: Outcome.not_attempted, error: forbiddenHeader, evidence: { stage: Stage.validation } });
      case 'pending':
        pendingGets = 0;
        return record('act_pending', { status: Status.pending, outcome: Outcome.not_attempted, result: null });
      default:
        return { error: { ...notFound, code: Code.BAD_REQUEST, retry: Retry.after_correction } };
    }
  });
  serve(s.actionsGet, (req) => {
    if (req.invocation_id === 'act_ok') return record('act_ok');
    if (req.invocation_id === 'act_pending') {
      pendingGets++;
      // Resolved on the third read, so the poller must come back more than once.
      return pendingGets >= 3 ? record('act_pending') : record('act_pending', { status: Status.pending, outcome: Outcome.not_attempted });
    }
    return { error: notFound };
  });
  serve(s.resultsFetch, (req) =>
    req.invocation_id === 'act_ok'
      ? {
          invocation_id: 'act_ok',
          outcome: Outcome.committed,
          complete: true,
          result_digest: 'sha256:result-ok',
          http: { status: 200, headers: {}, body_bytes: bigBody.length, parts: 2 },
          ssh: null,
        }
      : { error: notFound },
  );
  serve(s.resultsPart, (req) => {
    const seq = req.seq as number;
    const data = parts[seq - 1];
    if (req.stream !== 'body' || data === undefined) return { error: notFound };
    const last = seq === parts.length;
    return {
      invocation_id: req.invocation_id,
      stream: 'body',
      seq,
      data: { base64: Buffer.from(data).toString('base64') },
      part_digest: sha(data),
      last,
      ...(last ? { total_bytes: bigBody.length, digest: sha(bigBody) } : {}),
    };
  });
  serve(s.resultsAck, (req) =>
    req.result_digest === 'sha256:result-ok' ? record('act_ok', { delivered: true }) : { error: { ...notFound, code: Code.DIGEST_MISMATCH } },
  );
  serviceKeys = generateSealKeyPair();
  const vaultReply = (): unknown => ({ state: vaultState, public_key: publicKeyBase64(serviceKeys) });
  serve(s.vaultStatus, vaultReply);
  serve(s.vaultInit, (req) => {
    const passphrase = open('init', req.passphrase_sealed);
    if (passphrase === null) return vaultError(Code.BAD_REQUEST, 'The passphrase could not be opened.');
    if (vaultState !== 'uninitialized') return vaultError(Code.BAD_REQUEST, 'The vault exists.');
    vaultPassphrase = passphrase;
    vaultState = 'ready';
    return vaultReply();
  });
  serve(s.vaultUnlock, (req) => {
    const passphrase = open('unlock', req.passphrase_sealed);
    if (passphrase === null || passphrase !== vaultPassphrase) return vaultError(Code.VAULT_LOCKED, 'Wrong passphrase.');
    vaultState = 'ready';
    return vaultReply();
  });
  serve(s.vaultLock, () => {
    vaultState = 'locked';
    return vaultReply();
  });
  serve(s.credentialsPut, (req) => {
    const secret = open('put', req.secret_sealed);
    if (secret === null) return vaultError(Code.BAD_REQUEST, 'The secret could not be opened.');
    const { secret_sealed: _sealed, ...meta } = req;
    const previous = stored.get(req.id as string);
    const credential = { ...meta, version: ((previous?.version as number | undefined) ?? 0) + 1, created_at: '2025-01-01T00:00:00.000Z' };
    stored.set(req.id as string, credential);
    return { credential };
  });
  serve(s.credentialsList, () => ({ credentials: [...stored.values()] }));
  serve(s.credentialsRevoke, (req) => {
    const credential = stored.get(req.id as string);
    if (credential === undefined) return { error: { ...notFound, message: 'No such credential.' } };
    credential.revoked = true;
    return { credential };
  });
  serve(subjects(BADKEY_PREFIX).vaultStatus, () => ({ state: 'ready', public_key: 'AAAA' }));
  serve(subjects(LOCKED_PREFIX).vaultStatus, () => vaultError(Code.VAULT_LOCKED, 'The vault is locked; an operator must unlock it.'));
  serve(s.projectorReplay, (req, msg) => {
    const progress = req.progress_subject as string;
    for (let i = 1; i <= 4; i++) nc.publish(progress, JSON.stringify({ seq: i * 500, last_seq: 2000 }));
    // Flushed before the reply so the progress is seen first, as from a real projector.
    void nc.flush().then(() => msg.respond(JSON.stringify({ events: 2000, invocations: 400, anomalies: 1, last_seq: 2000 })));
    return undefined;
  });

  const a = subjects(AWAIT_PREFIX);
  serve(a.actionsSubmit, () => record('act_aw', { status: Status.pending, outcome: Outcome.not_attempted }));
  serve(a.actionsAwait, (req) => (typeof req.timeout_ms === 'number' && req.timeout_ms > 0 ? record('act_aw') : { error: notFound }));
  await nc.flush();
}, 180_000);

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

describe('postern (built, as a child process)', () => {
  it('submits a command file and exits 0 on a committed record, printing only the raw reply with --json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postern-cli-'));
    try {
      const file = join(dir, 'cmd.json');
      await writeFile(file, JSON.stringify({ client_request_id: 'ok', action: 'http.request' }));
      const res = await runCli(['--json', 'submit', file]);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual(record('act_ok'));
      expect(res.stdout.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('submits from stdin and exits 1 on a validation record, with the summary on stderr', async () => {
    const res = await runCli(['submit', '-'], { stdin: JSON.stringify({ client_request_id: 'bad' }) });
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({ invocation_id: 'act_bad', error: { code: Code.FORBIDDEN_HEADER } });
    expect(res.stderr).toContain('not_attempted · validation · FORBIDDEN_HEADER · retry after_correction (field http.headers.authorization)');
  });

  it('waits for a pending record by polling actions.get when nothing serves actions.await', async () => {
    const before = received[subjects(PREFIX).actionsGet]?.length ?? 0;
    const res = await runCli(['--json', 'submit', '--wait-ms', '10000'], { stdin: JSON.stringify({ client_request_id: 'pending' }) });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ invocation_id: 'act_pending', status: Status.resolved });
    expect((received[subjects(PREFIX).actionsGet]?.length ?? 0) - before).toBe(3);
  });

  it('waits through actions.await where it is served', async () => {
    const res = await runCli(['--json', 'submit'], { stdin: '{"client_request_id":"x"}', env: { POSTERN_PREFIX: AWAIT_PREFIX } });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ invocation_id: 'act_aw', status: Status.resolved });
    const awaited = received[subjects(AWAIT_PREFIX).actionsAwait] ?? [];
    expect(awaited.at(-1)).toMatchObject({ invocation_id: 'act_aw' });
  });

  it('with --no-wait prints the pending record and exits 1 with a note', async () => {
    const res = await runCli(['submit', '--no-wait'], { stdin: JSON.stringify({ client_request_id: 'pending' }) });
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({ status: Status.pending });
    expect(res.stderr).toContain('postern get act_pending');
  });

  it('refuses invalid JSON locally with exit 2 and the position, sending nothing', async () => {
    const before = received[subjects(PREFIX).actionsSubmit]?.length ?? 0;
    const res = await runCli(['submit', '-'], { stdin: '{\n  "client_request_id": "ok",\n  "action": }' });
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('line 3, column 13');
    expect(received[subjects(PREFIX).actionsSubmit]?.length ?? 0).toBe(before);
  });

  it('gets a record (exit 0) and an unknown id (exit 1, the error reply)', async () => {
    const ok = await runCli(['get', 'act_ok']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual(record('act_ok'));
    expect(ok.stderr).toContain('committed · remote_execution · (no error)');
    const missing = await runCli(['--json', 'get', 'act_nope']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({ error: notFound });
  });

  it('fetches a body split in parts, verifies them and writes the exact bytes', async () => {
    const res = await runCli(['fetch', 'act_ok']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(bigBody.toString('utf8'));
    expect(received[subjects(PREFIX).resultsPart]?.map((p) => (p as { seq: number }).seq)).toEqual([1, 2]);
  });

  it('acks with the digest of the stored result', async () => {
    const res = await runCli(['--json', 'ack', 'act_ok']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ delivered: true });
    expect(received[subjects(PREFIX).resultsAck]?.at(-1)).toEqual({ invocation_id: 'act_ok', result_digest: 'sha256:result-ok' });
  });


  it('replays with progress on stderr and the summary on stdout', async () => {
    const res = await runCli(['replay']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ events: 2000, invocations: 400, anomalies: 1, last_seq: 2000 });
    expect(res.stderr).toMatch(/replay \[[#.]{10}\] \d+% \d+\/2000 events/);
    expect(res.stderr).toContain('replay [##########] 100% 2000/2000 events');
  });

  it('says the projector is not running when nothing serves replay (exit 2)', async () => {
    const res = await runCli(['replay'], { env: { POSTERN_PREFIX: 'nobody' } });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('the projector is not running: start the broker with `npm start`');
  });

  it('says what to do when nothing answers on a subject (exit 2)', async () => {
    const res = await runCli(['get', 'act_ok'], { env: { POSTERN_PREFIX: 'nobody' } });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('nothing answers on nobody.v1.actions.get');
    expect(res.stderr).toContain('npm start');
  });

  it('exits 2 with the start hint when NATS is unreachable, without printing credentials of the URL', async () => {
    const port = await freePort();
    const res = await runCli(['--timeout', '2000', 'get', 'act_ok'], { env: { NATS_URL: `nats://alice:s3cr3t@127.0.0.1:${port}` } });
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('Is the broker running? Start it with `npm start` in the repo root, or set NATS_URL.');
    expect(res.stderr).not.toContain('s3cr3t');
  });

  it('prints usage on stderr and exits 2 for --help and an unknown command', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(2);
    expect(help.stdout).toBe('');
    expect(help.stderr).toContain('usage: postern');
    const unknown = await runCli(['launch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "launch"');
  });
});

describe('postern vault and credential (sealed to a stand-in credential service)', () => {
  const PASSPHRASE = 'canary-passphrase-7Q2 with spaces';
  const TOKEN = 'canary-token-x9F/+=&?';

  it('prints the vault state and public key', async () => {
    const res = await runCli(['--json', 'vault', 'status']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ state: 'uninitialized', public_key: publicKeyBase64(serviceKeys) });
    expect(res.stderr).toBe('');
  });

  it('inits the vault with the first line of stdin, sealed: the service opens it intact and it appears nowhere else', async () => {
    const res = await runCli(['--json', 'vault', 'init'], { stdin: `${PASSPHRASE}\r\nignored second line\n` });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ state: 'ready', public_key: publicKeyBase64(serviceKeys) });
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toBe('');
    expect(opened.init).toEqual([PASSPHRASE]);
    const request = received[subjects(PREFIX).vaultInit]?.at(-1) as Record<string, unknown>;
    expect(Object.keys(request)).toEqual(['passphrase_sealed']);
    expectNowhere(PASSPHRASE, res.stdout, res.stderr);
  });

  it('locks, refuses a wrong passphrase with exit 1, and unlocks with the right one', async () => {
    const lock = await runCli(['--json', 'vault', 'lock']);
    expect(lock.code).toBe(0);
    expect(JSON.parse(lock.stdout)).toMatchObject({ state: 'locked' });
    expect(received[subjects(PREFIX).vaultLock]?.at(-1)).toEqual({});

    const wrong = await runCli(['vault', 'unlock'], { stdin: 'not-the-passphrase\n' });
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ error: { code: Code.VAULT_LOCKED } });
    expect(vaultState).toBe('locked');

    const right = await runCli(['vault', 'unlock'], { stdin: `${PASSPHRASE}\n` });
    expect(right.code).toBe(0);
    expect(JSON.parse(right.stdout)).toMatchObject({ state: 'ready' });
    expect(opened.unlock).toEqual(['not-the-passphrase', PASSPHRASE]);
    expectNowhere(PASSPHRASE, wrong.stdout, wrong.stderr, right.stdout, right.stderr);
  });

  it('refuses an empty passphrase with exit 2 and sends nothing to unlock', async () => {
    const before = received[subjects(PREFIX).vaultUnlock]?.length ?? 0;
    const res = await runCli(['vault', 'unlock'], { stdin: '\n' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('the passphrase is empty');
    expect(received[subjects(PREFIX).vaultUnlock]?.length ?? 0).toBe(before);
  });

  it('puts a bearer token from stdin, less one newline, sealed; prints only the reply with --json', async () => {
    const res = await runCli(['--json', 'credential', 'put', 'api', '--type', 'http_bearer', '--scope', 'http://127.0.0.1:*'], {
      stdin: `${TOKEN}\n`,
    });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(res.stdout)).toEqual({
      credential: {
        id: 'api',
        type: 'http_bearer',
        scope: ['http://127.0.0.1:*'],
        approval: 'none',
        version: 1,
        created_at: '2025-01-01T00:00:00.000Z',
      },
    });
    expect(opened.put?.at(-1)).toBe(TOKEN);
    const request = received[subjects(PREFIX).credentialsPut]?.at(-1) as Record<string, unknown>;
    expect(Object.keys(request).sort()).toEqual(['approval', 'id', 'scope', 'secret_sealed', 'type']);
    expectNowhere(TOKEN, res.stdout, res.stderr);
  });

  it.each([
    [
      'basic with --user',
      ['basic', '--type', 'http_basic', '--user', 'alice', '--scope', 'http://127.0.0.1:*', '--approval', 'per_call'],
      { id: 'basic', type: 'http_basic', user: 'alice', approval: 'per_call' },
    ],
    [
      'header with --header-name',
      ['hdr', '--type', 'http_header', '--header-name', 'X-Api-Key', '--scope', 'https://a.example', '--scope', 'https://b.example'],
      { id: 'hdr', type: 'http_header', header_name: 'X-Api-Key', scope: ['https://a.example', 'https://b.example'], approval: 'none' },
    ],
    [
      'query with --param',
      ['qry', '--type', 'http_query', '--param', 'api_key', '--scope', 'http://127.0.0.1:*'],
      { id: 'qry', type: 'http_query', param: 'api_key', approval: 'none' },
    ],
  ])('puts a %s credential with the fields its mode needs', async (_what, args, expected) => {
    const secret = `canary-${args[0] as string}-secret`;
    const res = await runCli(['credential', 'put', ...args], { stdin: `${secret}\n` });
    expect(res.code).toBe(0);
    const request = received[subjects(PREFIX).credentialsPut]?.at(-1) as Record<string, unknown>;
    expect(request).toMatchObject(expected);
    expect(typeof request.secret_sealed).toBe('string');
    expect(JSON.parse(res.stdout)).toMatchObject({ credential: expected });
    expect(opened.put?.at(-1)).toBe(secret);
    expectNowhere(secret, res.stdout, res.stderr);
  });

  it('keeps an ssh key file byte for byte, final newline included', async () => {
    const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nY2FuYXJ5LWtleQ==\n-----END OPENSSH PRIVATE KEY-----\n';
    const res = await runCli(['credential', 'put', 'deploy', '--type', 'ssh_key', '--user', 'deploy', '--scope', 'ssh://127.0.0.1:*'], {
      stdin: pem,
    });
    expect(res.code).toBe(0);
    expect(opened.put?.at(-1)).toBe(pem);
    expectNowhere('Y2FuYXJ5LWtleQ==', res.stdout, res.stderr);
  });

  it('a new value makes a new version; list shows metadata only; revoke sends {id}', async () => {
    const again = await runCli(['--json', 'credential', 'put', 'api', '--type', 'http_bearer', '--scope', 'http://127.0.0.1:*'], {
      stdin: 'canary-token-two',
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ credential: { id: 'api', version: 2 } });
    expect(opened.put?.at(-1)).toBe('canary-token-two');

    const list = await runCli(['--json', 'credential', 'list']);
    expect(list.code).toBe(0);
    const { credentials } = JSON.parse(list.stdout) as { credentials: Array<Record<string, unknown>> };
    expect(credentials.map((c) => c.id).sort()).toEqual(['api', 'basic', 'deploy', 'hdr', 'qry']);
    expect(received[subjects(PREFIX).credentialsList]?.at(-1)).toEqual({});

    const revoke = await runCli(['--json', 'credential', 'revoke', 'api']);
    expect(revoke.code).toBe(0);
    expect(JSON.parse(revoke.stdout)).toMatchObject({ credential: { id: 'api', revoked: true } });
    expect(received[subjects(PREFIX).credentialsRevoke]?.at(-1)).toEqual({ id: 'api' });

    const missing = await runCli(['credential', 'revoke', 'nope']);
    expect(missing.code).toBe(1);
    expectNowhere(TOKEN, again.stdout, list.stdout, revoke.stdout);
    expectNowhere('canary-token-two', again.stdout, again.stderr, list.stdout, revoke.stdout);
  });

  it('refuses a put without --type or --scope, or with an empty secret, with exit 2 and sends no put', async () => {
    const s = subjects(PREFIX);
    const puts = received[s.credentialsPut]?.length ?? 0;
    const statuses = received[s.vaultStatus]?.length ?? 0;
    const noType = await runCli(['credential', 'put', 'x', '--scope', 'http://127.0.0.1:*'], { stdin: 'canary-unsent\n' });
    expect(noType.code).toBe(2);
    expect(noType.stderr).toContain('credential put needs --type');
    const noScope = await runCli(['credential', 'put', 'x', '--type', 'http_bearer'], { stdin: 'canary-unsent\n' });
    expect(noScope.code).toBe(2);
    expect(noScope.stderr).toContain('at least one --scope');
    // Usage errors are found before NATS is touched at all.
    expect(received[s.vaultStatus]?.length ?? 0).toBe(statuses);

    const empty = await runCli(['credential', 'put', 'x', '--type', 'http_bearer', '--scope', 'http://127.0.0.1:*'], { stdin: '\n' });
    expect(empty.code).toBe(2);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('the secret is empty');
    expect(received[s.credentialsPut]?.length ?? 0).toBe(puts);
    expectNowhere('canary-unsent', noType.stdout, noType.stderr, noScope.stdout, noScope.stderr);
  });

  it('refuses a secret in argv before reading anything', async () => {
    const res = await runCli(['credential', 'put', 'x', '--type', 'http_bearer', '--scope', 'h', '--secret', 'canary-argv']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('secrets are read from stdin');
    expect(res.stderr).not.toContain('canary-argv');
  });

  it('prints the error and exits 1 when the vault status is an error, without reading or sending the secret', async () => {
    const res = await runCli(['--json', 'credential', 'put', 'x', '--type', 'http_bearer', '--scope', 'h'], {
      stdin: 'canary-locked\n',
      env: { POSTERN_PREFIX: LOCKED_PREFIX },
    });
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({ error: { code: Code.VAULT_LOCKED } });
    expect(received[subjects(LOCKED_PREFIX).credentialsPut]).toBeUndefined();
    expectNowhere('canary-locked', res.stdout, res.stderr);
  });

  it('refuses to seal to a public key that is not a raw X25519 key (exit 1)', async () => {
    const res = await runCli(['vault', 'unlock'], { stdin: 'canary-badkey\n', env: { POSTERN_PREFIX: BADKEY_PREFIX } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('public_key that is not a raw 32-byte X25519 key');
    expect(received[subjects(BADKEY_PREFIX).vaultUnlock]).toBeUndefined();
    expectNowhere('canary-badkey', res.stdout, res.stderr);
  });

  it('exits 2 when no credential service answers', async () => {
    const res = await runCli(['vault', 'init'], { stdin: 'canary-nobody\n', env: { POSTERN_PREFIX: 'nobody' } });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('nothing answers on nobody.v1.vault.status');
  });
});
