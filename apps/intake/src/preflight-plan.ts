import {
  buildBinding,
  canonicalJson,
  checkPreflight,
  normalizeTarget,
  type ActionCommand,
  type Binding,
  type CredentialMeta,
  type NormalizedTarget,
  type Policy,
  type ValidationFailure,
} from '@postern/contract';
import { digestOf } from '@postern/journal';
import { matchTarget, policyEntryDigest, type TargetAddress } from '@postern/policy';

/** What the intake will append after ACTION_ACCEPTED, decided before anything is written. */
export type PreflightPlan =
  | { kind: 'rejected'; failure: ValidationFailure }
  | {
      kind: 'validated';
      binding: Binding;
      requestFingerprint: string;
      /** The claim on KV `<prefix>_idempotency` (`<scope>/<key>`, not yet escaped), under a contract. */
      idempotency: { key: string; fingerprint: string } | null;
    };

export interface PreflightInput {
  command: ActionCommand;
  policy: Policy;
  credential: CredentialMeta | null;
  bodyDigest: string | null;
  /** ISO time of ACTION_ACCEPTED. */
  acceptedAt: string;
}

const HTTP_ORIGIN = /^(https?):\/\/(.+):(\d+)$/;

/** normalizeTarget gives the origin with an explicit port; the policy matcher wants its parts. */
export function targetAddress(target: NormalizedTarget): TargetAddress | null {
  if (target.kind === 'ssh') return { kind: 'ssh', host: target.host, port: target.port };
  const parts = HTTP_ORIGIN.exec(target.origin);
  if (parts === null) return null;
  return { kind: 'http', scheme: parts[1] as 'http' | 'https', host: parts[2] as string, port: Number(parts[3]) };
}

/**
 * The key an idempotency key is claimed under: `<scope>/<key>`, as CONTRACT.md
 * section 2 names it (escaped into a valid KV key by the caller).
 */
export function idempotencyClaimKey(binding: Binding): string | null {
  return binding.idempotency === null ? null : `${binding.idempotency.scope}/${binding.idempotency.key}`;
}

/**
 * The fingerprint two submissions with one idempotency key are compared by:
 * the binding without its expiry. The expiry is computed from each
 * submission's own acceptance time, so keeping it would make every second
 * submission look like another command.
 */
export function idempotencyFingerprint(binding: Binding): string {
  const idempotency = binding.idempotency === null ? null : { ...binding.idempotency, expires_at: undefined };
  return digestOf(canonicalJson({ ...binding, idempotency }));
}

/**
 * Policy match, credential and header checks, then the binding and its
 * fingerprint (CONTRACT.md section 6, validation rows). Reads nothing: the
 * policy and the credential metadata are passed in.
 */
export function planPreflight(input: PreflightInput): PreflightPlan {
  const { command, policy, credential } = input;
  const address = targetAddress(normalizeTarget(command));
  const target = address === null ? null : matchTarget(policy, address);
  const failure = checkPreflight({ command, target, credential });
  if (failure !== null) return { kind: 'rejected', failure };
  // checkPreflight refuses a missing target or credential, so both are here.
  if (target === null || credential === null) throw new Error('preflight passed without a target or credential');
  const binding = buildBinding({
    command,
    target,
    policyDigest: policyEntryDigest(target, policy.dispatch),
    credential,
    bodyDigest: input.bodyDigest,
    dispatch: policy.dispatch,
    acceptedAt: input.acceptedAt,
  });
  const claimKey = idempotencyClaimKey(binding);
  return {
    kind: 'validated',
    binding,
    requestFingerprint: digestOf(canonicalJson(binding)),
    idempotency: claimKey === null ? null : { key: claimKey, fingerprint: idempotencyFingerprint(binding) },
  };
}
