import { Inject, Injectable } from '@nestjs/common';
import {
  Code,
  EventType,
  leaseIsLive,
  requestError,
  Status,
  type ErrorReply,
  type Lease,
  type ReleasedCredential,
} from '@postern/contract';
import { encodeKvKey, kvGetJson, type Journal, type JournalResources } from '@postern/journal';
import { isMalformedRequest, type WarningLog } from '@postern/service';
import { parsePublicKey, sealTo, VaultDecryptError } from '@postern/vault';
import { CREDENTIAL_JOURNAL, CREDENTIAL_LOG, CREDENTIAL_RESOURCES } from './credential.constants.js';
import { foldHistory } from './invocation-fold.js';
import { VaultKeeper } from './vault-keeper.js';

export type ReleaseReply = { secret_sealed: string; credential: ReleasedCredential } | ErrorReply;

interface ReleaseRequest {
  invocation_id: string;
  attempt: number;
  generation: number;
  holder: string;
  public_key: Uint8Array;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const leaseMismatch = (): ErrorReply => requestError(Code.NOT_FOUND, 'No live lease of this holder, attempt and generation.');

function readRequest(input: unknown): ReleaseRequest | ErrorReply {
  if (isMalformedRequest(input) || !isObject(input)) return requestError(Code.BAD_REQUEST, 'The request must be a JSON object.');
  const { invocation_id, attempt, generation, holder, public_key } = input;
  if (typeof invocation_id !== 'string' || invocation_id.length === 0) {
    return requestError(Code.BAD_REQUEST, 'invocation_id is required.', 'invocation_id');
  }
  if (!isCount(attempt) || !isCount(generation)) return requestError(Code.BAD_REQUEST, 'attempt and generation must be counts.', 'attempt');
  if (typeof holder !== 'string' || holder.length === 0) return requestError(Code.BAD_REQUEST, 'holder is required.', 'holder');
  if (typeof public_key !== 'string') return requestError(Code.BAD_REQUEST, 'public_key is required.', 'public_key');
  try {
    return { invocation_id, attempt, generation, holder, public_key: parsePublicKey(public_key) };
  } catch {
    return requestError(Code.BAD_REQUEST, 'public_key must be a raw 32-byte X25519 key in standard base64.', 'public_key');
  }
}

/**
 * `P.v1.internal.credentials.release`: the secret, sealed to the one-time key
 * of the dispatcher attempt that holds the lease, and to nobody else. Every
 * condition is read fresh (lease, journal, vault), so a lease lost, an
 * invocation resolved or a credential revoked in between stops the release.
 */
@Injectable()
export class SecretRelease {
  constructor(
    @Inject(CREDENTIAL_RESOURCES) private readonly res: JournalResources,
    @Inject(CREDENTIAL_JOURNAL) private readonly journal: Journal,
    @Inject(CREDENTIAL_LOG) private readonly log: WarningLog,
    private readonly keeper: VaultKeeper,
  ) {}

  async run(input: unknown): Promise<ReleaseReply> {
    const request = readRequest(input);
    if ('error' in request) return request;
    const reply = await this.decide(request);
    if ('error' in reply) {
      this.log.warn('release.refused', { invocation_id: request.invocation_id, code: reply.error.code });
    } else {
      this.log.info('release.sealed', { invocation_id: request.invocation_id, attempt: request.attempt, generation: request.generation });
    }
    return reply;
  }

  private async decide(request: ReleaseRequest): Promise<ReleaseReply> {
    const lease = await kvGetJson<Lease>(this.res.kv.leases, encodeKvKey(request.invocation_id));
    const held = lease?.value ?? null;
    if (
      held === null ||
      !leaseIsLive(held, Date.now()) ||
      held.invocation_id !== request.invocation_id ||
      held.holder !== request.holder ||
      held.attempt !== request.attempt ||
      held.generation !== request.generation
    ) {
      return leaseMismatch();
    }
    const history = await this.journal.read(request.invocation_id);
    const authorized = [...history].reverse().find((e) => e.type === EventType.CREDENTIAL_AUTHORIZED);
    const granted = authorized?.data['credential'];
    if (!isObject(granted) || typeof granted['id'] !== 'string' || typeof granted['version'] !== 'number') {
      return requestError(Code.NOT_FOUND, 'The invocation holds no credential authorization.');
    }
    const state = foldHistory(request.invocation_id, history);
    if (state.status === Status.resolved) return requestError(Code.ALREADY_RESOLVED);
    const vault = this.keeper.vault;
    if (vault.state !== 'ready') return requestError(Code.VAULT_LOCKED);
    const current = vault.current(granted['id']);
    if (current === null || current.revoked === true || current.version !== granted['version']) {
      return requestError(Code.CREDENTIAL_MISSING);
    }
    let secret: Uint8Array;
    try {
      secret = vault.decrypt(current.id, current.version);
    } catch (err) {
      if (err instanceof VaultDecryptError) return requestError(Code.CREDENTIAL_DECRYPT_FAILED);
      throw err;
    }
    let sealed: string;
    try {
      sealed = sealTo(request.public_key, secret);
    } finally {
      secret.fill(0);
    }
    const credential: ReleasedCredential = { id: current.id, version: current.version, type: current.type, injection: current.type };
    if (current.user !== undefined) credential.user = current.user;
    if (current.header_name !== undefined) credential.header_name = current.header_name;
    if (current.param !== undefined) credential.param = current.param;
    return { secret_sealed: sealed, credential };
  }
}
