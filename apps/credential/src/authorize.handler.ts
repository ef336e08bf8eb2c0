import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { EventType, Status, type StoredEvent } from '@postern/contract';
import { durableConsumer, type DurableConsumer, type HandleVerdict, type Journal, type JournalResources } from '@postern/journal';
import { errorName, type WarningLog } from '@postern/service';
import { authorize, type Authorization } from './authorize.js';
import { credentialDraft } from './credential-event.js';
import { CREDENTIAL_DURABLE, CREDENTIAL_JOURNAL, CREDENTIAL_LOG, CREDENTIAL_RESOURCES } from './credential.constants.js';
import { foldHistory } from './invocation-fold.js';
import { VaultKeeper } from './vault-keeper.js';

const DECIDED = new Set<string>([EventType.CREDENTIAL_AUTHORIZED, EventType.CREDENTIAL_REJECTED]);
const LOST_RETRY_MS = 100;

/**
 * Reacts to PREFLIGHT_VALIDATED with CREDENTIAL_AUTHORIZED or
 * CREDENTIAL_REJECTED. The journal decides what is left to do, so a
 * redelivered event, or two replicas on one invocation, end in one verdict.
 */
@Injectable()
export class AuthorizeHandler implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer: DurableConsumer | null = null;

  constructor(
    @Inject(CREDENTIAL_RESOURCES) private readonly res: JournalResources,
    @Inject(CREDENTIAL_JOURNAL) private readonly journal: Journal,
    @Inject(CREDENTIAL_LOG) private readonly log: WarningLog,
    private readonly keeper: VaultKeeper,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await durableConsumer(this.res, {
      durable: CREDENTIAL_DURABLE,
      eventTypes: [EventType.PREFLIGHT_VALIDATED],
      handle: (ev) => this.handle(ev),
      onError: (err, ev) => this.log.error('authorize.failed', { invocation_id: ev.invocation_id, error: errorName(err) }),
      onInvalid: (err) => this.log.error('authorize.invalid_event', { error: errorName(err) }),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }

  async handle(ev: StoredEvent): Promise<HandleVerdict> {
    let verdict: Authorization | null = null;
    const result = await this.journal.appendNext(ev.invocation_id, (history) => {
      verdict = null;
      if (history.some((e) => DECIDED.has(e.type))) return null;
      const state = foldHistory(ev.invocation_id, history);
      if (state.status === Status.resolved || state.binding === null || state.dispatches > 0) return null;
      verdict = this.decide(state.binding);
      const at = new Date().toISOString();
      switch (verdict.kind) {
        case 'authorized':
          return credentialDraft(EventType.CREDENTIAL_AUTHORIZED, at, { credential: verdict.credential });
        case 'rejected': {
          const data: Record<string, unknown> = { code: verdict.code, message: verdict.message };
          if (verdict.action_required !== undefined) data['action_required'] = verdict.action_required;
          return credentialDraft(EventType.CREDENTIAL_REJECTED, at, data);
        }
        case 'awaiting_approval':
          return null;
        default: {
          const never: never = verdict;
          throw new Error(`unknown authorization ${String(never)}`);
        }
      }
    });
    if (result.status === 'lost') return { nak_delay_ms: LOST_RETRY_MS };
    const decided = verdict as Authorization | null;
    if (result.status === 'appended' && decided !== null) {
      if (decided.kind === 'authorized') {
        this.log.info('credential.authorized', { invocation_id: ev.invocation_id, version: decided.credential.version });
      } else if (decided.kind === 'rejected') {
        this.log.info('credential.rejected', { invocation_id: ev.invocation_id, code: decided.code });
      }
    } else if (decided !== null && (decided as Authorization).kind === 'awaiting_approval') {
      // Approvals come with a later issue; until then such an invocation stays pending rather than run unapproved.
      this.log.warn('approval.unsupported', { invocation_id: ev.invocation_id });
    }
    return 'ack';
  }

  private decide(binding: Parameters<typeof authorize>[0]['binding']): Authorization {
    const vault = this.keeper.vault;
    const current = vault.current(binding.credential.id);
    let decrypts: boolean | null = null;
    if (vault.state === 'ready' && current !== null && !current.revoked && current.version === binding.credential.version) {
      try {
        vault.decrypt(current.id, current.version).fill(0);
        decrypts = true;
      } catch {
        decrypts = false;
      }
    }
    return authorize({ binding, vault: vault.state, current, decrypts });
  }
}
