import type { Classification } from './classification.js';
import { Code } from './code.js';
import { CODE_PHASE } from './code-phase.js';
import type {
  HttpObservation,
  Observation,
  SetupFailure,
  SshObservation,
} from './observation.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import { Retry } from './retry.js';
import { DeferredRetry, type RetryRule } from './retry-rule.js';
import { Stage } from './stage.js';

/**
 * CONTRACT.md section 6 as a function: one observation in, one
 * classification out. Every row of the table is a branch here, and nothing
 * else decides phase, outcome, code or retry.
 */
export function classify(observation: Observation): Classification {
  switch (observation.kind) {
    case 'preflight':
      return classifyPreflight(observation.code);
    case 'setup':
      return classifySetup(observation.failure);
    case 'http':
      return classifyHttp(observation);
    case 'ssh':
      return classifySsh(observation);
    case 'caller_cancelled':
      return observation.dispatched
        ? remote(Outcome.unknown, Code.CALLER_CANCELLED, DeferredRetry.rule_u, Stage.response_headers)
        : {
            phase: observation.phase,
            outcome: Outcome.not_attempted,
            code: Code.CALLER_CANCELLED,
            retry_rule: Retry.never,
            stage: STAGE_OF_PHASE[observation.phase],
          };
    case 'recovery':
      return {
        ...remote(Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, DeferredRetry.rule_u, Stage.response_headers),
        recovered: true,
      };
    case 'budget_exhausted':
      return remote(observation.outcome, Code.RETRY_BUDGET_EXHAUSTED, Retry.reconcile, Stage.response_headers);
    case 'result_delivery_failed':
      return {
        phase: Phase.result_delivery,
        outcome: observation.outcome,
        code: Code.RESULT_DELIVERY_FAILED,
        retry_rule: Retry.fetch_result,
        stage: Stage.result_delivery,
      };
    case 'result_store_failed':
      return {
        phase: Phase.result_delivery,
        // Only a durable REMOTE_RESPONSE_COMPLETE proves the remote's answer.
        outcome: observation.response_complete_durable ? observation.outcome : Outcome.unknown,
        code: Code.RESULT_STORE_FAILED,
        retry_rule: Retry.never,
        stage: Stage.result_store,
        intervention_required: true,
      };
    default: {
      const never: never = observation;
      throw new Error(`unhandled observation ${String((never as { kind?: unknown }).kind)}`);
    }
  }
}

const STAGE_OF_PHASE: Record<Phase, Classification['stage']> = {
  [Phase.validation]: Stage.validation,
  [Phase.credential_injection]: Stage.credential,
  [Phase.connection_setup]: Stage.tcp_connect,
  [Phase.remote_execution]: Stage.response_headers,
  [Phase.result_delivery]: Stage.result_delivery,
};

/** Pre-dispatch refusals whose retry is not `after_correction`. */
const PREFLIGHT_RETRY: Partial<Record<Code, Retry>> = {
  [Code.APPROVAL_DENIED]: Retry.never,
  [Code.CREDENTIAL_DECRYPT_FAILED]: Retry.never,
};

function classifyPreflight(code: Code): Classification {
  const phase = CODE_PHASE[code] === Phase.credential_injection ? Phase.credential_injection : Phase.validation;
  const result: Classification = {
    phase,
    outcome: Outcome.not_attempted,
    code,
    retry_rule: PREFLIGHT_RETRY[code] ?? Retry.after_correction,
    stage: phase === Phase.credential_injection ? Stage.credential : Stage.validation,
  };
  if (code === Code.VAULT_LOCKED) result.action_required = 'vault_unlock';
  return result;
}

const SETUP: Record<SetupFailure, { code: Code; retry: Retry; stage: Classification['stage'] }> = {
  dns_nxdomain: { code: Code.DNS_FAILED, retry: Retry.after_correction, stage: Stage.dns },
  dns_temporary: { code: Code.DNS_FAILED, retry: Retry.backoff, stage: Stage.dns },
  tcp_refused: { code: Code.CONNECT_REFUSED, retry: Retry.backoff, stage: Stage.tcp_connect },
  tcp_timeout: { code: Code.CONNECT_TIMEOUT, retry: Retry.backoff, stage: Stage.tcp_connect },
  tcp_unreachable: { code: Code.NETWORK_UNREACHABLE, retry: Retry.backoff, stage: Stage.tcp_connect },
  tls_cert_rejected: { code: Code.TLS_CERT_REJECTED, retry: Retry.after_correction, stage: Stage.tls_handshake },
  tls_handshake: { code: Code.TLS_HANDSHAKE_FAILED, retry: Retry.backoff, stage: Stage.tls_handshake },
  proxy_tunnel: { code: Code.PROXY_TUNNEL_FAILED, retry: Retry.backoff, stage: Stage.proxy_connect },
  ssh_kex: { code: Code.SSH_HANDSHAKE_FAILED, retry: Retry.backoff, stage: Stage.ssh_handshake },
  ssh_host_key: { code: Code.SSH_HOST_KEY_REJECTED, retry: Retry.after_correction, stage: Stage.ssh_host_key },
  ssh_auth: { code: Code.SSH_AUTH_FAILED, retry: Retry.after_correction, stage: Stage.ssh_auth },
};

function classifySetup(failure: SetupFailure): Classification {
  const row = SETUP[failure];
  return {
    phase: Phase.connection_setup,
    outcome: Outcome.not_attempted,
    code: row.code,
    retry_rule: row.retry,
    stage: row.stage,
  };
}

function remote(outcome: Outcome, code: Code | null, retry_rule: RetryRule, stage: Classification['stage']): Classification {
  return { phase: Phase.remote_execution, outcome, code, retry_rule, stage };
}

function classifyHttp(o: HttpObservation): Classification {
  const extras: Partial<Classification> = {};
  if (o.retry_after_ms !== undefined && Number.isFinite(o.retry_after_ms) && o.retry_after_ms >= 0) {
    extras.retry_after_ms = o.retry_after_ms;
  }
  if (o.hop !== undefined) extras.hop = o.hop;
  if (o.proxy_status !== undefined) extras.proxy_status = o.proxy_status;

  // No complete final head: nothing the remote said can be relied on.
  if (o.status === null) {
    if (o.response_started) {
      return { ...remote(Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, DeferredRetry.rule_u, Stage.response_headers), ...extras };
    }
    const stage = o.request_complete && !o.write_failed ? Stage.response_headers : Stage.request_write;
    // A failed write, even on a fresh or reused socket, may have carried bytes.
    return { ...remote(Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, DeferredRetry.rule_u, stage), ...extras };
  }
  if (!o.body_complete) {
    return { ...remote(Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, DeferredRetry.rule_u, Stage.response_body), ...extras };
  }
  const byStatus = classifyStatus(o);
  if (o.body_over_limit) {
    return { ...byStatus, code: Code.RESPONSE_TRUNCATED, retry_rule: Retry.never, complete: false, ...extras };
  }
  return { ...byStatus, ...extras };
}

/** The status rows of the table, for a complete response. */
function classifyStatus(o: HttpObservation): Classification {
  const status = o.status as number;
  const done = Stage.response_body;
  if (status === 202) {
    const c = remote(Outcome.committed, null, Retry.never, done);
    if (o.location !== undefined) {
      c.async_operation = o.job_id !== undefined ? { status_url: o.location, job_id: o.job_id } : { status_url: o.location };
    }
    return c;
  }
  if (status >= 200 && status < 400) return remote(Outcome.committed, null, Retry.never, done);
  if (o.contract !== null && status === o.contract.in_use_status) {
    return remote(Outcome.rejected, Code.IDEMPOTENCY_KEY_IN_USE, Retry.same_idempotency_key, done);
  }
  if (o.contract !== null && status === o.contract.mismatch_status) {
    return remote(Outcome.rejected, Code.IDEMPOTENCY_MISMATCH, Retry.after_correction, done);
  }
  if (status === 408) return remote(Outcome.rejected, Code.REMOTE_REJECTED, DeferredRetry.rule_r, done);
  if (status === 429) return remote(Outcome.rejected, Code.RATE_LIMITED, DeferredRetry.rule_r, done);
  if (status >= 400 && status < 500) return remote(Outcome.rejected, Code.REMOTE_REJECTED, Retry.after_correction, done);
  if (status === 502 || status === 504) {
    return remote(Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, DeferredRetry.rule_u, done);
  }
  if (status >= 500 && status < 600) {
    return remote(Outcome.committed, Code.REMOTE_ERROR_RESPONSE, DeferredRetry.error_response, done);
  }
  // A final status outside 2xx..5xx is not HTTP we can vouch for.
  return remote(Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, DeferredRetry.rule_u, Stage.response_headers);
}

function classifySsh(o: SshObservation): Classification {
  if (o.channel_open_refused) {
    return remote(Outcome.rejected, Code.SSH_CHANNEL_OPEN_FAILED, Retry.backoff, Stage.ssh_channel_open);
  }
  const exited = o.exit_status !== null || o.exit_signal !== null;
  if (!exited) {
    // ssh2 reports "Unable to exec" for a real failure reply and for a lost
    // connection alike; only a reply over a live connection is a refusal.
    if (o.exec_reply === 'failure' && !o.connection_lost) {
      return remote(Outcome.rejected, Code.SSH_EXEC_REJECTED, Retry.after_correction, Stage.exec_request);
    }
    const stage = o.exec_reply === 'success' ? Stage.exec_running : Stage.exec_request;
    if (o.connection_lost || o.broker_timeout || !o.channel_closed) {
      return remote(Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, DeferredRetry.rule_u, stage);
    }
    return remote(Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, DeferredRetry.rule_u, Stage.exec_running);
  }
  const done = Stage.exec_running;
  if (o.output_broken) return remote(Outcome.committed, Code.REMOTE_OUTPUT_INCOMPLETE, Retry.never, done);
  const clean = o.exit_status === 0 && o.exit_signal === null;
  if (o.output_over_limit) {
    return { ...remote(Outcome.committed, Code.REMOTE_OUTPUT_TRUNCATED, Retry.never, done), complete: false };
  }
  if (clean) return remote(Outcome.committed, null, Retry.never, done);
  return remote(Outcome.committed, Code.REMOTE_EXIT_NONZERO, DeferredRetry.exit_nonzero, done);
}
