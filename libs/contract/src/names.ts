/**
 * Subject and resource names (CONTRACT.md section 2), all derived from the
 * prefix so that several brokers can share one NATS without touching each
 * other.
 */
export interface Subjects {
  actionsSubmit: string;
  actionsGet: string;
  actionsAwait: string;
  actionsCancel: string;
  actionsRetry: string;
  actionsReconcile: string;
  resultsFetch: string;
  resultsPart: string;
  resultsAck: string;
  approvalsList: string;
  approvalsDecide: string;
  operatorAttest: string;
  vaultStatus: string;
  vaultInit: string;
  vaultUnlock: string;
  vaultLock: string;
  credentialsPut: string;
  credentialsList: string;
  credentialsRevoke: string;
  /** Asks the projector to rebuild its read model from the journal. */
  projectorReplay: string;
  /**
   * Service-only: the dispatcher holding an attempt's lease asks the
   * credential service for the secret, sealed to a one-time key.
   */
  credentialsRelease: string;
  /** The subject that holds every event of one invocation. */
  evt: (invocationId: string) => string;
  /** The journal stream's subject filter. */
  evtAll: string;
}

export function subjects(prefix: string): Subjects {
  const p = `${prefix}.v1`;
  return {
    actionsSubmit: `${p}.actions.submit`,
    actionsGet: `${p}.actions.get`,
    actionsAwait: `${p}.actions.await`,
    actionsCancel: `${p}.actions.cancel`,
    actionsRetry: `${p}.actions.retry`,
    actionsReconcile: `${p}.actions.reconcile`,
    resultsFetch: `${p}.results.fetch`,
    resultsPart: `${p}.results.part`,
    resultsAck: `${p}.results.ack`,
    approvalsList: `${p}.approvals.list`,
    approvalsDecide: `${p}.approvals.decide`,
    operatorAttest: `${p}.operator.attest`,
    vaultStatus: `${p}.vault.status`,
    vaultInit: `${p}.vault.init`,
    vaultUnlock: `${p}.vault.unlock`,
    vaultLock: `${p}.vault.lock`,
    credentialsPut: `${p}.credentials.put`,
    credentialsList: `${p}.credentials.list`,
    credentialsRevoke: `${p}.credentials.revoke`,
    projectorReplay: `${p}.projector.replay`,
    credentialsRelease: `${p}.internal.credentials.release`,
    evt: (invocationId: string) => `${p}.evt.${invocationId}`,
    evtAll: `${p}.evt.>`,
  };
}

export interface ResourceNames {
  /** JetStream stream holding the journal. */
  stream: string;
  /** KV buckets. */
  requests: string;
  idempotency: string;
  leases: string;
  credentials: string;
  /** Object stores. */
  results: string;
  payloads: string;
}

export function resourceNames(prefix: string): ResourceNames {
  return {
    stream: `${prefix.toUpperCase()}_EVENTS`,
    requests: `${prefix}_requests`,
    idempotency: `${prefix}_idempotency`,
    leases: `${prefix}_leases`,
    credentials: `${prefix}_credentials`,
    results: `${prefix}_results`,
    payloads: `${prefix}_payloads`,
  };
}
