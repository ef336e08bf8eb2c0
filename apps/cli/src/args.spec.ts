import { describe, expect, it } from 'vitest';
import { CredentialType } from '@postern/contract';
import { DEFAULT_TIMEOUT_MS, DEFAULT_WAIT_MS, parseArgs } from './args.js';
import { UsageError } from './errors.js';

describe('parseArgs', () => {
  it('reads global options before or after the command alike', () => {
    const a = parseArgs(['--json', '--timeout', '500', 'get', 'act_1']);
    const b = parseArgs(['get', 'act_1', '--timeout=500', '--json']);
    expect(a).toEqual(b);
    expect(a).toEqual({ options: { json: true, timeoutMs: 500 }, command: { name: 'get', id: 'act_1' } });
  });

  it('uses the default timeout and human output when no option is given', () => {
    expect(parseArgs(['cancel', 'act_2'])).toEqual({
      options: { json: false, timeoutMs: DEFAULT_TIMEOUT_MS },
      command: { name: 'cancel', id: 'act_2' },
    });
  });

  it('reads submit with a file, stdin dash, or nothing, and its wait options', () => {
    expect(parseArgs(['submit', 'cmd.json']).command).toEqual({ name: 'submit', file: 'cmd.json', wait: true, waitMs: DEFAULT_WAIT_MS });
    expect(parseArgs(['submit', '-']).command).toEqual({ name: 'submit', file: '-', wait: true, waitMs: DEFAULT_WAIT_MS });
    expect(parseArgs(['submit', '--no-wait']).command).toEqual({ name: 'submit', file: null, wait: false, waitMs: DEFAULT_WAIT_MS });
    expect(parseArgs(['submit', '--wait-ms', '1500', 'x.json']).command).toEqual({ name: 'submit', file: 'x.json', wait: true, waitMs: 1500 });
  });

  it.each([
    [[], 'missing command'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['get'], 'missing invocation id'],
    [['get', 'a', 'b'], 'unexpected argument "b"'],
    [['get', 'a', '--no-wait'], '--no-wait does not apply to `get`'],
    [['get', 'a', '--bogus'], 'unknown option --bogus'],
    [['get', 'a', '-x'], 'unknown option -x'],
    [['--timeout', '0', 'get', 'a'], '--timeout must be a positive whole number'],
    [['--timeout', 'soon', 'get', 'a'], '--timeout must be a positive whole number'],
    [['get', 'a', '--timeout'], '--timeout needs a value'],
    [['--json=yes', 'get', 'a'], '--json takes no value'],
    [['submit', 'a.json', 'b.json'], 'unexpected argument "b.json"'],
    [['vault'], 'missing vault action'],
    [['vault', 'open'], 'unknown vault action "open"'],
    [['credential'], 'missing credential action'],
    [['credential', 'revoke'], 'missing credential id'],
  ])('refuses %j with a usage error', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });

  it('answers --help and -h with the help command, even next to another command', () => {
    expect(parseArgs(['--help']).command).toEqual({ name: 'help' });
    expect(parseArgs(['-h']).command).toEqual({ name: 'help' });
    expect(parseArgs(['get', '--help']).command).toEqual({ name: 'help' });
  });

  it('reads the vault actions', () => {
    for (const action of ['init', 'unlock', 'lock', 'status'] as const) {
      expect(parseArgs(['vault', action]).command).toEqual({ name: 'vault', action });
    }
  });

  it('reads credential put with repeated scopes and optional fields', () => {
    const { command } = parseArgs([
      'credential', 'put', 'deploy', '--type', 'ssh_key', '--scope', 'ssh://deploy@10.0.0.5:22',
      '--scope', 'ssh://deploy@10.0.0.6:*', '--user', 'deploy', '--approval', 'per_call',
    ]);
    expect(command).toEqual({
      name: 'credential_put',
      put: {
        id: 'deploy',
        type: CredentialType.ssh_key,
        scope: ['ssh://deploy@10.0.0.5:22', 'ssh://deploy@10.0.0.6:*'],
        user: 'deploy',
        headerName: null,
        param: null,
        approval: 'per_call',
      },
    });
  });

  it('defaults credential approval to none and checks type-specific fields', () => {
    const put = parseArgs(['credential', 'put', 'k', '--type', 'http_header', '--scope', 'https://a.example', '--header-name', 'X-Key']);
    expect(put.command).toMatchObject({ put: { approval: 'none', headerName: 'X-Key' } });
    expect(() => parseArgs(['credential', 'put', 'k', '--type', 'http_header', '--scope', 'https://a'])).toThrow('needs --header-name');
    expect(() => parseArgs(['credential', 'put', 'k', '--type', 'http_query', '--scope', 'https://a'])).toThrow('needs --param');
    expect(() => parseArgs(['credential', 'put', 'k', '--type', 'magic', '--scope', 'https://a'])).toThrow('--type must be one of');
    expect(() => parseArgs(['credential', 'put', 'k', '--type', 'http_bearer'])).toThrow('at least one --scope');
    expect(() => parseArgs(['credential', 'put', 'k', '--type', 'http_bearer', '--scope', 'x', '--approval', 'maybe'])).toThrow(
      '--approval must be one of none, per_call',
    );
  });

  it('reads the flags each injection mode needs', () => {
    const base = ['credential', 'put', 'api', '--scope', 'http://127.0.0.1:*'];
    expect(parseArgs([...base, '--type', 'http_bearer']).command).toMatchObject({
      put: { type: CredentialType.http_bearer, user: null, headerName: null, param: null, approval: 'none' },
    });
    expect(parseArgs([...base, '--type', 'http_basic', '--user', 'alice']).command).toMatchObject({
      put: { type: CredentialType.http_basic, user: 'alice' },
    });
    expect(parseArgs([...base, '--type=http_header', '--header-name=X-Api-Key']).command).toMatchObject({
      put: { type: CredentialType.http_header, headerName: 'X-Api-Key' },
    });
    expect(parseArgs([...base, '--type', 'http_query', '--param', 'api_key', '--approval', 'none']).command).toMatchObject({
      put: { type: CredentialType.http_query, param: 'api_key', approval: 'none' },
    });
    expect(parseArgs([...base, '--type', 'ssh_password']).command).toMatchObject({ put: { user: null } });
  });

  it.each([
    [['--type', 'http_basic'], '--type http_basic needs --user'],
    [['--type', 'http_bearer', '--header-name', 'X-Key'], '--header-name applies only to --type http_header'],
    [['--type', 'http_bearer', '--param', 'key'], '--param applies only to --type http_query'],
    [['--type', 'http_query', '--param', 'key', '--user', 'u'], '--user applies only to --type http_basic, ssh_key, ssh_password'],
    [['--type', 'http_bearer', '--user', 'u', '--user', 'v'], '--user given more than once'],
    [['--type', 'http_basic', '--user', 'u', '--approval', 'none', '--approval', 'per_call'], '--approval given more than once'],
    [['--scope', 'x'], 'credential put needs --type'],
    [['--type', 'http_bearer', '--scope'], '--scope needs a value'],
    [['--type', 'http_bearer', '--scope', 'x', '--param'], '--param needs a value'],
  ])('refuses credential put with %j', (flags, message) => {
    const scoped = flags.includes('--scope') ? flags : [...flags, '--scope', 'http://127.0.0.1:*'];
    expect(() => parseArgs(['credential', 'put', 'api', ...scoped])).toThrow(message);
  });

  it('refuses credential put without an id, with two ids, and credential flags on other commands', () => {
    expect(() => parseArgs(['credential', 'put', '--type', 'http_bearer', '--scope', 'x'])).toThrow('missing credential id');
    expect(() => parseArgs(['credential', 'put', 'a', 'b', '--type', 'http_bearer', '--scope', 'x'])).toThrow('unexpected argument "b"');
    expect(() => parseArgs(['credential', 'list', '--type', 'http_bearer'])).toThrow('--type does not apply to `credential list`');
    expect(() => parseArgs(['vault', 'unlock', '--scope', 'x'])).toThrow('--scope does not apply to `vault unlock`');
  });

  it('never accepts a secret on the command line', () => {
    expect(() => parseArgs(['credential', 'put', 'k', '--type', 'http_bearer', '--scope', 'x', '--secret', 's3cr3t'])).toThrow(
      'secrets are read from stdin',
    );
    expect(() => parseArgs(['vault', 'unlock', '--passphrase=hunter2'])).toThrow('secrets are read from stdin');
  });

  it('reads credential list and revoke, and takes arguments after -- literally', () => {
    expect(parseArgs(['credential', 'list']).command).toEqual({ name: 'credential_list' });
    expect(parseArgs(['credential', 'revoke', 'k']).command).toEqual({ name: 'credential_revoke', id: 'k' });
    expect(parseArgs(['get', '--', '--odd-id']).command).toEqual({ name: 'get', id: '--odd-id' });
  });
});
