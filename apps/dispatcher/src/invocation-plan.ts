import {
  Action,
  EventType,
  evolve,
  initialState,
  Outcome,
  Status,
  type Binding,
  type InvocationState,
  type PendingRedirect,
  type StoredEvent,
} from '@postern/contract';

/**
 * What the dispatcher should do with an invocation, decided from its journal
 * alone. `recover`: an attempt crossed DISPATCH_STARTED and nothing resolved
 * it; it is never sent again, only closed as unknown once its lease expires.
 */
export type InvocationPlan =
  | { kind: 'skip'; reason: SkipReason }
  | {
      kind: 'dispatch';
      attempt: number;
      binding: Binding;
      fingerprint: string;
      deadline_at: string | null;
      state: InvocationState;
      /** Set when this attempt follows a redirect of the one before (`redirects: same_origin`). */
      redirect: PendingRedirect | null;
    }
  | { kind: 'recover'; attempt: number; state: InvocationState };

export type SkipReason =
  | 'unknown_invocation'
  | 'not_authorized'
  | 'closed'
  | 'committed'
  | 'cancelled'
  | 'resolved'
  | 'budget_spent'
  | 'not_http';

/** The fold of one invocation; events the fold refuses are left out, as the projector does. */
export function foldHistory(history: readonly StoredEvent[]): InvocationState | null {
  const first = history[0];
  if (first === undefined) return null;
  let state = initialState(first.invocation_id);
  for (const event of history) {
    const next = evolve(state, event);
    if (next.ok) state = next.state;
  }
  return state;
}

/** The dispatched attempt that has no verdict yet, if any. */
export function openAttempt(state: InvocationState): number | null {
  const row = state.attempts.find((r) => r.dispatched && r.outcome === Outcome.unknown && r.code === null);
  return row === undefined ? null : row.attempt;
}

function authorizedSinceBinding(history: readonly StoredEvent[]): boolean {
  let bound = false;
  let authorized = false;
  for (const e of history) {
    if (e.type === EventType.PREFLIGHT_VALIDATED) bound = true;
    if (e.type === EventType.CREDENTIAL_AUTHORIZED && bound) authorized = true;
  }
  return authorized;
}

export function planInvocation(history: readonly StoredEvent[]): InvocationPlan {
  const state = foldHistory(history);
  if (state === null || !state.accepted) return { kind: 'skip', reason: 'unknown_invocation' };
  const open = openAttempt(state);
  if (open !== null) return { kind: 'recover', attempt: open, state };
  if (state.closed_before_dispatch) return { kind: 'skip', reason: 'closed' };
  // A followed redirect is the one attempt that may come after a commit.
  const redirect = state.redirect ?? null;
  if (state.outcome === Outcome.committed && redirect === null) return { kind: 'skip', reason: 'committed' };
  if (state.cancelled) return { kind: 'skip', reason: 'cancelled' };
  if (state.status === Status.resolved) return { kind: 'skip', reason: 'resolved' };
  const binding = state.binding;
  if (binding === null || state.request_fingerprint === null || !authorizedSinceBinding(history)) {
    return { kind: 'skip', reason: 'not_authorized' };
  }
  const runnable = binding.action === Action.ssh_exec || (binding.action === Action.http_request && binding.method !== null);
  if (!runnable) return { kind: 'skip', reason: 'not_http' };
  if (state.dispatches >= binding.budget) return { kind: 'skip', reason: 'budget_spent' };
  return {
    kind: 'dispatch',
    attempt: state.dispatches + 1,
    binding,
    fingerprint: state.request_fingerprint,
    deadline_at: state.deadline_at,
    state,
    redirect,
  };
}

/** A CALLER_CANCELLED is in the journal (intake's or ours). */
export function hasCancel(history: readonly StoredEvent[]): boolean {
  return history.some((e) => e.type === EventType.CALLER_CANCELLED);
}
