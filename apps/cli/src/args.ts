import { CredentialType, type CredentialMeta } from '@postern/contract';
import { UsageError } from './errors.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_WAIT_MS = 60_000;

export interface GlobalOptions {
  json: boolean;
  timeoutMs: number;
}

export type VaultAction = 'init' | 'unlock' | 'lock' | 'status';
export type Approval = CredentialMeta['approval'];

export interface CredentialPut {
  id: string;
  type: CredentialType;
  scope: string[];
  user: string | null;
  headerName: string | null;
  param: string | null;
  approval: Approval;
}

export type Command =
  | { name: 'help' }
  | { name: 'up' }
  | { name: 'submit'; file: string | null; wait: boolean; waitMs: number }
  | { name: 'get'; id: string }
  | { name: 'cancel'; id: string }
  | { name: 'fetch'; id: string }
  | { name: 'ack'; id: string }
  | { name: 'replay' }
  | { name: 'vault'; action: VaultAction }
  | { name: 'credential_put'; put: CredentialPut }
  | { name: 'credential_list' }
  | { name: 'credential_revoke'; id: string };

export interface ParsedArgs {
  options: GlobalOptions;
  command: Command;
}

// Flags that take a value; every other flag is a switch. Knowing this before
// the command is known lets `--timeout 5 get x` and `get x --timeout 5` parse alike.
const VALUE_FLAGS = new Set(['timeout', 'wait-ms', 'type', 'scope', 'user', 'header-name', 'param', 'approval']);
const SWITCH_FLAGS = new Set(['json', 'help', 'no-wait']);
const GLOBAL_FLAGS = new Set(['json', 'help', 'timeout']);

const COMMAND_FLAGS: Record<string, ReadonlySet<string>> = {
  submit: new Set(['no-wait', 'wait-ms']),
  'credential put': new Set(['type', 'scope', 'user', 'header-name', 'param', 'approval']),
};

const VAULT_ACTIONS: readonly VaultAction[] = ['init', 'unlock', 'lock', 'status'];
const APPROVALS: readonly Approval[] = ['none', 'per_call'];
const CREDENTIAL_TYPES: readonly string[] = Object.values(CredentialType);
const USER_TYPES: readonly string[] = [CredentialType.http_basic, CredentialType.ssh_key, CredentialType.ssh_password];

interface Tokens {
  positionals: string[];
  flags: Map<string, string[]>;
}

function tokenize(argv: readonly string[]): Tokens {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  const add = (name: string, value: string): void => {
    const values = flags.get(name) ?? [];
    values.push(value);
    flags.set(name, values);
  };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (token === '-h') {
      add('help', 'true');
      continue;
    }
    // A lone `-` is the conventional name for stdin, not a flag.
    if (!token.startsWith('--') || token === '-') {
      if (token.startsWith('-') && token !== '-') throw new UsageError(`unknown option ${token}`);
      positionals.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    const name = eq === -1 ? token.slice(2) : token.slice(2, eq);
    if (name === 'secret' || name === 'password' || name === 'passphrase') {
      // Command lines end up in shell history and process listings.
      throw new UsageError(`--${name} is not accepted: secrets are read from stdin, never from the command line`);
    }
    if (VALUE_FLAGS.has(name)) {
      let value: string | undefined;
      if (eq !== -1) value = token.slice(eq + 1);
      else {
        value = argv[i + 1];
        i++;
      }
      if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
      add(name, value);
    } else if (SWITCH_FLAGS.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      add(name, 'true');
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return { positionals, flags };
}

function positiveInt(flag: string, raw: string): number {
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`--${flag} must be a positive whole number of milliseconds, got "${raw}"`);
  }
  return Number(raw);
}

function single(tokens: Tokens, flag: string): string | null {
  const values = tokens.flags.get(flag);
  if (values === undefined) return null;
  if (values.length > 1) throw new UsageError(`--${flag} given more than once`);
  return values[0] as string;
}

function exactly(positionals: string[], count: number, what: string): string[] {
  if (positionals.length < count) throw new UsageError(`missing ${what}`);
  if (positionals.length > count) throw new UsageError(`unexpected argument "${positionals[count]}"`);
  return positionals;
}

function checkFlags(tokens: Tokens, commandKey: string): void {
  const allowed = COMMAND_FLAGS[commandKey] ?? new Set<string>();
  for (const flag of tokens.flags.keys()) {
    if (!GLOBAL_FLAGS.has(flag) && !allowed.has(flag)) {
      throw new UsageError(`--${flag} does not apply to \`${commandKey}\``);
    }
  }
}

function parseCredentialPut(tokens: Tokens, rest: string[]): CredentialPut {
  const [id] = exactly(rest, 1, 'credential id');
  const type = single(tokens, 'type');
  if (type === null) throw new UsageError('credential put needs --type');
  if (!CREDENTIAL_TYPES.includes(type)) {
    throw new UsageError(`--type must be one of ${CREDENTIAL_TYPES.join(', ')}, got "${type}"`);
  }
  const scope = tokens.flags.get('scope') ?? [];
  if (scope.length === 0) throw new UsageError('credential put needs at least one --scope');
  const approval = single(tokens, 'approval') ?? 'none';
  if (!(APPROVALS as readonly string[]).includes(approval)) {
    throw new UsageError(`--approval must be one of ${APPROVALS.join(', ')}, got "${approval}"`);
  }
  const headerName = single(tokens, 'header-name');
  const param = single(tokens, 'param');
  if (type === CredentialType.http_header && headerName === null) {
    throw new UsageError('--type http_header needs --header-name');
  }
  if (type === CredentialType.http_query && param === null) {
    throw new UsageError('--type http_query needs --param');
  }
  const user = single(tokens, 'user');
  if (type === CredentialType.http_basic && user === null) {
    throw new UsageError('--type http_basic needs --user (the secret on stdin is the password)');
  }
  // A flag the type ignores is almost always a mistyped --type: refuse it
  // rather than store a credential that injects something else.
  if (headerName !== null && type !== CredentialType.http_header) {
    throw new UsageError(`--header-name applies only to --type ${CredentialType.http_header}`);
  }
  if (param !== null && type !== CredentialType.http_query) {
    throw new UsageError(`--param applies only to --type ${CredentialType.http_query}`);
  }
  if (user !== null && !USER_TYPES.includes(type)) {
    throw new UsageError(`--user applies only to --type ${USER_TYPES.join(', ')}`);
  }
  return {
    id: id as string,
    type: type as CredentialType,
    scope,
    user,
    headerName,
    param,
    approval: approval as Approval,
  };
}

function parseCommand(tokens: Tokens): Command {
  const [name, ...rest] = tokens.positionals;
  switch (name) {
    case undefined:
      throw new UsageError('missing command');
    case 'help':
      return { name };
    case 'up':
    case 'replay':
      checkFlags(tokens, name);
      exactly(rest, 0, '');
      return { name };
    case 'submit': {
      checkFlags(tokens, name);
      if (rest.length > 1) throw new UsageError(`unexpected argument "${rest[1]}"`);
      const waitMs = single(tokens, 'wait-ms');
      return {
        name,
        file: rest[0] ?? null,
        wait: !tokens.flags.has('no-wait'),
        waitMs: waitMs === null ? DEFAULT_WAIT_MS : positiveInt('wait-ms', waitMs),
      };
    }
    case 'get':
    case 'cancel':
    case 'fetch':
    case 'ack': {
      checkFlags(tokens, name);
      const [id] = exactly(rest, 1, 'invocation id');
      return { name, id: id as string };
    }
    case 'vault': {
      const [action] = exactly(rest, 1, `vault action (${VAULT_ACTIONS.join('|')})`);
      if (!(VAULT_ACTIONS as readonly string[]).includes(action as string)) {
        throw new UsageError(`unknown vault action "${action}": use ${VAULT_ACTIONS.join('|')}`);
      }
      checkFlags(tokens, `vault ${action}`);
      return { name, action: action as VaultAction };
    }
    case 'credential': {
      const [action, ...args] = rest;
      if (action === 'put') {
        checkFlags(tokens, 'credential put');
        return { name: 'credential_put', put: parseCredentialPut(tokens, args) };
      }
      if (action === 'list') {
        checkFlags(tokens, 'credential list');
        exactly(args, 0, '');
        return { name: 'credential_list' };
      }
      if (action === 'revoke') {
        checkFlags(tokens, 'credential revoke');
        const [id] = exactly(args, 1, 'credential id');
        return { name: 'credential_revoke', id: id as string };
      }
      throw new UsageError(
        action === undefined ? 'missing credential action (put|list|revoke)' : `unknown credential action "${action}": use put|list|revoke`,
      );
    }
    default:
      throw new UsageError(`unknown command "${name}"`);
  }
}

/** Parses `process.argv.slice(2)`; throws UsageError for anything it cannot accept. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const tokens = tokenize(argv);
  const timeout = single(tokens, 'timeout');
  const options: GlobalOptions = {
    json: tokens.flags.has('json'),
    timeoutMs: timeout === null ? DEFAULT_TIMEOUT_MS : positiveInt('timeout', timeout),
  };
  if (tokens.flags.has('help')) return { options, command: { name: 'help' } };
  return { options, command: parseCommand(tokens) };
}
