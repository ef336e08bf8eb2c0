import { Code, Phase, Retry, requestError, type ErrorReply, type RecordView } from '@postern/contract';

/** No RESULT_COMMITTED: either the result is still on its way, or the store failed it. */
export function notCommitted(view: RecordView): ErrorReply {
  if (view.error?.code === Code.RESULT_STORE_FAILED) return storeFailed(view);
  return requestError(Code.NOT_FOUND, 'No result has been committed for this invocation (yet).', undefined, {
    phase: Phase.result_delivery,
    outcome: view.outcome,
  });
}

/** CONTRACT.md section 6: outcome kept, retry never, an operator must look. */
export function storeFailed(view: RecordView): ErrorReply {
  return requestError(Code.RESULT_STORE_FAILED, undefined, undefined, {
    phase: Phase.result_delivery,
    outcome: view.outcome,
    retry: Retry.never,
  });
}
