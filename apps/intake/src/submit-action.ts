import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  canonicalJson,
  Code,
  CredentialType,
  EventType,
  newInvocationId,
  parseActionCommand,
  readClientRequestId,
  requestError,
  type ActionCommand,
  type CredentialMeta,
  type ErrorReply,
  type RecordView,
  type StoredEvent,
} from '@postern/contract';
import {
  digestOf,
  encodeKvKey,
  kvCreateOnly,
  putPayload,
  type Journal,
  type JournalResources,
} from '@postern/journal';
import type { PolicyStore } from '@postern/policy';
import { errorName, type ServiceLog } from '@postern/service';
import { acceptedCommand, type PayloadRef } from './accepted-command.js';
import { IntakeBusyError } from './errors.js';
import { intakeEvent, lastSeqOf } from './intake-event.js';
import { INTAKE_JOURNAL, INTAKE_LOG, INTAKE_POLICY, INTAKE_RESOURCES } from './intake.constants.js';
import { isPlainObject } from './invocation-request.js';
import { payloadBytes } from './payload-bytes.js';
import { planPreflight, type PreflightPlan } from './preflight-plan.js';
import { RecordReader, viewOf } from './record-reader.js';

/** KV `<prefix>_requests` value (CONTRACT.md section 2). */
interface RequestEntry {
  invocation_id: string;
  command_digest: string;
}

/** KV `<prefix>_idempotency` value (CONTRACT.md section 2). */
interface IdempotencyEntry {
  invocation_id: string;
  fingerprint: string;
}

/** Everything decided about a command before its first event is written. */
interface Prepared {
  accepted: Record<string, unknown>;
  plan: PreflightPlan;
  payload: Uint8Array | null;
}

type Claim = { kind: 'ours' } | { kind: 'mismatch' } | { kind: 'held'; invocationId: string };

// Each round re-reads the journal after losing an append to another writer;
// the intake writes at most two events, so a few rounds settle any race.
const MAX_ROUNDS = 4;
// How long a duplicate submission waits for the invocation that holds its
// idempotency key to write its first event.
const HOLDER_WAIT_MS = 2_000;
const HOLDER_POLL_MS = 50;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function shortString(value: unknown): string | null {
  return typeof value === 'string' && value.length <= 128 ? value : null;
}

/** The header a credential injects under a name of its own; its value may be a secret. */
function injectedHeaderName(credential: CredentialMeta | null): string[] {
  return credential?.type === CredentialType.http_header && credential.header_name !== undefined
    ? [credential.header_name]
    : [];
}

function isCredentialMeta(value: unknown): value is CredentialMeta {
  return isPlainObject(value) && typeof value['id'] === 'string' && typeof value['version'] === 'number' && typeof value['type'] === 'string';
}

/**
 * `P.v1.actions.submit`. Submission is idempotent by `client_request_id`
 * (create-only KV `requests`), then ACTION_ACCEPTED and PREFLIGHT_VALIDATED
 * or PREFLIGHT_REJECTED are appended. The flow is driven by what the journal
 * holds, so an intake that crashed half-way, or two intakes handling the same
 * submission at once, end in the same two events.
 */
@Injectable()
export class SubmitAction {
  constructor(
    @Inject(INTAKE_RESOURCES) private readonly res: JournalResources,
    @Inject(INTAKE_JOURNAL) private readonly journal: Journal,
    @Inject(INTAKE_POLICY) private readonly policy: PolicyStore,
    @Inject(INTAKE_LOG) private readonly log: ServiceLog,
    private readonly reader: RecordReader,
  ) {}

  async run(input: unknown): Promise<RecordView | ErrorReply> {
    try {
      return await this.submit(input);
    } catch (err) {
      this.log.error('submit.failed', { error: errorName(err) });
      throw err;
    }
  }

  private async submit(input: unknown): Promise<RecordView | ErrorReply> {
    if (!isPlainObject(input)) {
      this.log.info('submit.refused', { code: Code.BAD_REQUEST });
      return requestError(Code.BAD_REQUEST, 'The request must be a JSON object.');
    }
    const clientRequestId = readClientRequestId(input);
    if (clientRequestId === null) {
      this.log.info('submit.refused', { code: Code.BAD_REQUEST });
      return requestError(
        Code.BAD_REQUEST,
        'client_request_id must be 1 to 128 characters of A-Z a-z 0-9 . _ : -.',
        'client_request_id',
      );
    }
    const commandDigest = digestOf(canonicalJson(input));
    const fresh: RequestEntry = {
      invocation_id: newInvocationId(Date.now(), randomBytes(10)),
      command_digest: commandDigest,
    };
    const claim = await kvCreateOnly<RequestEntry>(this.res.kv.requests, encodeKvKey(clientRequestId), fresh);
    let invocationId = fresh.invocation_id;
    if (!claim.created) {
      if (claim.existing.command_digest !== commandDigest) {
        this.log.info('submit.refused', { code: Code.IDEMPOTENCY_MISMATCH, invocation_id: claim.existing.invocation_id });
        return requestError(
          Code.IDEMPOTENCY_MISMATCH,
          'This client_request_id was already used with a different command.',
          'client_request_id',
        );
      }
      invocationId = claim.existing.invocation_id;
    }
    return this.advance(invocationId, clientRequestId, commandDigest, input);
  }

  /** Appends what is missing of ACTION_ACCEPTED and its preflight verdict, then answers. */
  private async advance(
    invocationId: string,
    clientRequestId: string,
    commandDigest: string,
    input: Record<string, unknown>,
  ): Promise<RecordView | ErrorReply> {
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const history = await this.journal.read(invocationId);
      const first = history[0];
      if (history.length > 1 || (first !== undefined && first.type !== EventType.ACTION_ACCEPTED)) {
        return viewOf(invocationId, history, Date.now());
      }
      const acceptedAt = first?.at ?? new Date().toISOString();
      const prepared = await this.prepare(input, clientRequestId, commandDigest, acceptedAt);
      let plan = prepared.plan;
      if (plan.kind === 'validated' && plan.idempotency !== null) {
        const claim = await this.claimIdempotency(invocationId, plan.idempotency);
        if (claim.kind === 'held' && first === undefined) {
          // Nothing of this invocation is written yet: the caller gets the one that holds the key.
          this.log.info('submit.deduplicated', { invocation_id: claim.invocationId });
          return this.holderView(claim.invocationId);
        }
        if (claim.kind !== 'ours') {
          plan = {
            kind: 'rejected',
            failure: {
              code: Code.IDEMPOTENCY_MISMATCH,
              field: 'idempotency_key',
              message: 'This idempotency key is already held by another command in its scope.',
            },
          };
        }
      }
      if (plan.kind === 'validated' && prepared.payload !== null) await putPayload(this.res, prepared.payload);

      let events: StoredEvent[] = history;
      if (first === undefined) {
        const accepted = intakeEvent(EventType.ACTION_ACCEPTED, invocationId, 1, acceptedAt, prepared.accepted);
        const appended = await this.journal.append(accepted, 0);
        if (appended.status === 'lost') continue;
        events = [{ ...accepted, seq: appended.seq }];
      }
      const verdict =
        plan.kind === 'validated'
          ? intakeEvent(EventType.PREFLIGHT_VALIDATED, invocationId, 2, new Date().toISOString(), {
              binding: plan.binding,
              request_fingerprint: plan.requestFingerprint,
            })
          : intakeEvent(EventType.PREFLIGHT_REJECTED, invocationId, 2, new Date().toISOString(), {
              code: plan.failure.code,
              field: plan.failure.field,
              message: plan.failure.message,
            });
      const appended = await this.journal.append(verdict, lastSeqOf(events));
      if (appended.status === 'lost') continue;
      this.log.info('submit.accepted', {
        invocation_id: invocationId,
        verdict: verdict.type,
        code: plan.kind === 'rejected' ? plan.failure.code : null,
      });
      return viewOf(invocationId, [...events, { ...verdict, seq: appended.seq }], Date.now());
    }
    // Other writers kept winning; whatever they wrote is the answer.
    const view = await this.reader.view(invocationId);
    if (view === null) throw new IntakeBusyError(`invocation ${invocationId} could not be started`);
    return view;
  }

  private async prepare(
    input: Record<string, unknown>,
    clientRequestId: string,
    commandDigest: string,
    acceptedAt: string,
  ): Promise<Prepared> {
    const parsed = parseActionCommand(input);
    if (!parsed.ok) {
      return {
        accepted: {
          client_request_id: clientRequestId,
          caller: shortString(input['caller']),
          action: shortString(input['action']),
          command_digest: commandDigest,
          command: null,
          deadline_at: null,
        },
        plan: { kind: 'rejected', failure: parsed.failure },
        payload: null,
      };
    }
    const command: ActionCommand = parsed.command;
    const body = payloadBytes(command);
    const bodyDigest = body === null ? null : digestOf(body.bytes);
    const credential = await this.credentialMeta(command.credential);
    const plan = planPreflight({ command, policy: this.policy.current(), credential, bodyDigest, acceptedAt });
    const ref: PayloadRef | null =
      body === null || bodyDigest === null ? null : { digest: bodyDigest, bytes: body.bytes.byteLength, encoding: body.encoding };
    const deadline =
      command.timeout_ms === undefined ? null : new Date(Date.parse(acceptedAt) + command.timeout_ms).toISOString();
    return {
      accepted: {
        client_request_id: clientRequestId,
        caller: command.caller ?? null,
        action: command.action,
        command_digest: commandDigest,
        command: acceptedCommand(command, ref, injectedHeaderName(credential)),
        deadline_at: deadline,
      },
      plan,
      payload: body?.bytes ?? null,
    };
  }

  /** Credential metadata as the credential service published it; an unreadable entry counts as unknown. */
  private async credentialMeta(id: string): Promise<CredentialMeta | null> {
    const entry = await this.res.kv.credentials.get(encodeKvKey(id));
    if (entry === null || entry.operation !== 'PUT') return null;
    let value: unknown;
    try {
      value = entry.json<unknown>();
    } catch {
      return null;
    }
    return isCredentialMeta(value) ? value : null;
  }

  private async claimIdempotency(invocationId: string, want: { key: string; fingerprint: string }): Promise<Claim> {
    const claim = await kvCreateOnly<IdempotencyEntry>(this.res.kv.idempotency, encodeKvKey(want.key), {
      invocation_id: invocationId,
      fingerprint: want.fingerprint,
    });
    if (claim.created || claim.existing.invocation_id === invocationId) return { kind: 'ours' };
    if (claim.existing.fingerprint !== want.fingerprint) return { kind: 'mismatch' };
    return { kind: 'held', invocationId: claim.existing.invocation_id };
  }

  /**
   * The holder claimed the key just before writing its first event; give it a
   * moment. If it never writes (it crashed), its own caller's resubmission
   * completes it; until then this caller is told to come back.
   */
  private async holderView(holderId: string): Promise<RecordView> {
    const deadline = Date.now() + HOLDER_WAIT_MS;
    for (let i = 0; i < Math.ceil(HOLDER_WAIT_MS / HOLDER_POLL_MS) + 1; i++) {
      const view = await this.reader.view(holderId);
      if (view !== null) return view;
      if (Date.now() >= deadline) break;
      await sleep(HOLDER_POLL_MS);
    }
    throw new IntakeBusyError(`the invocation holding this idempotency key has not started yet`);
  }
}
