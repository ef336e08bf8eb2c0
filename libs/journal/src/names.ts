import { resourceNames, subjects } from '@postern/contract';

/**
 * JetStream resource names derived from the subject prefix (CONTRACT.md
 * section 2), grouped the way the journal's handles are, with the checks
 * that keep a prefix or id from escaping its subject token.
 */
export interface JournalNames {
  prefix: string;
  stream: string;
  /** Wildcard subject the journal stream captures. */
  eventSubjects: string;
  kv: { requests: string; idempotency: string; leases: string; credentials: string };
  objects: { results: string; payloads: string };
  /** The one subject that carries every event of an invocation. */
  eventSubject(invocationId: string): string;
  /** A consumer name scoped to this prefix, so brokers sharing a NATS never share consumers. */
  consumer(role: string): string;
}

// Stream, bucket and consumer names may not hold '.', '*', '>' or whitespace,
// and the prefix is also the first subject token.
const PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
// An invocation id is one subject token.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export class InvalidNameError extends Error {
  override name = 'InvalidNameError';
}

export function journalNames(prefix: string): JournalNames {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new InvalidNameError(`prefix must match ${PREFIX_PATTERN.source}`);
  }
  const rn = resourceNames(prefix);
  const subj = subjects(prefix);
  return {
    prefix,
    stream: rn.stream,
    eventSubjects: subj.evtAll,
    kv: { requests: rn.requests, idempotency: rn.idempotency, leases: rn.leases, credentials: rn.credentials },
    objects: { results: rn.results, payloads: rn.payloads },
    eventSubject(invocationId: string): string {
      if (!TOKEN_PATTERN.test(invocationId)) {
        throw new InvalidNameError(`invocation id must match ${TOKEN_PATTERN.source}`);
      }
      return subj.evt(invocationId);
    },
    consumer(role: string): string {
      if (!PREFIX_PATTERN.test(role)) {
        throw new InvalidNameError(`consumer role must match ${PREFIX_PATTERN.source}`);
      }
      return `${prefix}_${role}`;
    },
  };
}
