import { describe, expect, it } from 'vitest';
import { Code, Outcome, Phase, Retry, Stage, Status } from '@postern/contract';
import { summaryLine } from './summary.js';

function record(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    invocation_id: 'act_1',
    client_request_id: 'r1',
    status: Status.resolved,
    outcome: Outcome.committed,
    cancelled: false,
    delivered: false,
    error: null,
    evidence: { stage: Stage.response_body },
    ...over,
  };
}

describe('summaryLine', () => {
  it('says committed with no error, and the phase from the stage reached', () => {
    expect(summaryLine(record())).toBe('committed · remote_execution · (no error)');
  });

  it('names outcome, phase, code, retry and the field to correct', () => {
    const line = summaryLine(
      record({
        outcome: Outcome.not_attempted,
        evidence: { stage: Stage.validation },
        error: {
          code: Code.FORBIDDEN_HEADER,
          phase: Phase.validation,
          outcome: Outcome.not_attempted,
          retry: Retry.after_correction,
          message: 'm',
          field: 'http.headers.authorization',
        },
      }),
    );
    expect(line).toBe('not_attempted · validation · FORBIDDEN_HEADER · retry after_correction (field http.headers.authorization)');
  });

  it('marks a pending or cancelled record and an operator action', () => {
    expect(summaryLine(record({ status: Status.pending, outcome: Outcome.not_attempted, evidence: { stage: Stage.tcp_connect } }))).toBe(
      'pending · not_attempted · connection_setup · (no error)',
    );
    const locked = summaryLine(
      record({
        outcome: Outcome.not_attempted,
        cancelled: true,
        error: {
          code: Code.VAULT_LOCKED,
          phase: Phase.credential_injection,
          outcome: Outcome.not_attempted,
          retry: Retry.after_correction,
          message: 'm',
          action_required: 'vault_unlock',
        },
      }),
    );
    expect(locked).toBe('not_attempted · credential_injection · VAULT_LOCKED · retry after_correction (action required: vault_unlock) · cancelled');
  });

  it('summarises an error reply that is not about an invocation, and nothing else', () => {
    const reply = {
      error: { code: Code.NOT_FOUND, phase: Phase.validation, outcome: Outcome.not_attempted, retry: Retry.never, message: 'm' },
    };
    expect(summaryLine(reply)).toBe('not_attempted · validation · NOT_FOUND · retry never');
    expect(summaryLine({ state: 'ready' })).toBeNull();
  });
});
