import {
  classify,
  CredentialType,
  EventType,
  Outcome,
  EvidenceSource,
  type Classification,
  type ReleasedCredential,
  type TargetPolicy,
} from '@postern/contract';
import { putHttpResult, type HandleVerdict } from '@postern/journal';
import { sendRequest, type HttpConnection, type HttpExchangeReport } from '@postern/transport-http';
import { classificationData, completeData, exchangeFlags, requestSentData, responseStartedData, unknownData } from './attempt-evidence.js';
import { errorName } from './dispatcher-log.js';
import { FaultPoint } from './fault-point.js';
import { hasCancel } from './invocation-plan.js';
import { observationFromReport, type ResponseFacts } from './observation-from-report.js';
import { sameOriginLocation, withoutBodyHeaders } from './redirect-follow.js';
import { callerHeadersOf, planRequest, type BoundTarget } from './request-plan.js';
import { responseFacts } from './response-facts.js';
import { resultToStore } from './stored-result.js';
import type { ExchangeContext } from './exchange-context.js';
import { PostDispatchWriter } from './post-dispatch-writer.js';

const MAX_TIMER_MS = 2_147_483_647;

/** The request line of this attempt: the bound one, or a followed redirect's. */
export interface AttemptRequest {
  method: string;
  /** False for a 303 follow-up: a GET without the body. */
  keepBody: boolean;
}

/** A 3xx this attempt commits and the next attempt follows. */
interface RedirectToFollow {
  status: number;
  location: string;
}

/**
 * The part of an attempt after DISPATCH_STARTED: build the request, hand it
 * to the transport, record what the wire showed, as it happens and in
 * order, and close the attempt with one verdict. If an append loses its
 * place (the journal moved on without this attempt), it stops writing:
 * recovery owns the attempt then.
 */
export class AttemptExchange {
  private readonly writer: PostDispatchWriter;

  constructor(private readonly ctx: ExchangeContext) {
    this.writer = new PostDispatchWriter(ctx);
  }

  async run(
    conn: HttpConnection,
    bound: BoundTarget,
    entry: TargetPolicy,
    credential: ReleasedCredential,
    body: Uint8Array | null,
    deadline: number | null,
    line: AttemptRequest,
  ): Promise<HandleVerdict> {
    const secret = this.ctx.secret;
    const callerHeaders = callerHeadersOf(this.ctx.plan.state.command);
    const request = planRequest({
      binding: this.ctx.plan.binding,
      bound,
      callerHeaders: line.keepBody ? callerHeaders : withoutBodyHeaders(callerHeaders),
      credential,
      secret,
      body: line.keepBody ? body : null,
      method: line.method,
    });
    const chunks: Uint8Array[] = [];
    let facts: ResponseFacts | null = null;
    let sentLogged = false;
    let startedLogged = false;
    const untilDeadline = deadline === null ? null : Math.max(0, deadline - this.ctx.deps.now());
    // A deadline beyond what a timer can hold is beyond every broker timeout too.
    const deadlineTimer =
      untilDeadline === null || untilDeadline > MAX_TIMER_MS
        ? null
        : setTimeout(() => this.writer.enqueue(() => this.writer.cancelAfterDispatch()), untilDeadline);

    let report: HttpExchangeReport;
    try {
      report = await sendRequest(conn, request, {
        responseHeadersTimeoutMs: entry.timeouts_ms.response_headers,
        bodyTimeoutMs: entry.timeouts_ms.body,
        responseBodyBytes: entry.limits.response_body_bytes,
        responseReadBytes: entry.limits.response_read_bytes,
        onRequestSent: (flags) => {
          sentLogged = true;
          this.writer.enqueue(async () => {
            await this.writer.append(EventType.REQUEST_SENT, requestSentData(flags));
            await this.ctx.fault(FaultPoint.after_request_sent);
          });
        },
        onResponseStarted: (status, headers) => {
          startedLogged = true;
          facts = responseFacts(headers, this.ctx.deps.now(), this.ctx.forms);
          const data = responseStartedData(status, headers, facts);
          this.writer.enqueue(() => this.writer.append(EventType.REMOTE_RESPONSE_STARTED, data));
        },
        onBodyChunk: (chunk) => {
          chunks.push(chunk);
        },
      });
    } catch (err) {
      // The transport reports failures as facts; a throw is a bug, and the
      // socket's state is unknown, so it is never reused.
      this.ctx.deps.pool.discard(conn);
      throw err;
    } finally {
      if (deadlineTimer !== null) clearTimeout(deadlineTimer);
    }

    if (!sentLogged && report.request_headers_sent) {
      this.writer.enqueue(() => this.writer.append(EventType.REQUEST_SENT, requestSentData(report)));
    }
    const status = report.headers_complete && report.status !== null && report.status >= 200 ? report.status : null;
    if (facts === null && report.headers !== null) facts = responseFacts(report.headers, this.ctx.deps.now(), this.ctx.forms);
    if (!startedLogged && status !== null && report.headers !== null) {
      const data = responseStartedData(status, report.headers, facts ?? {});
      this.writer.enqueue(() => this.writer.append(EventType.REMOTE_RESPONSE_STARTED, data));
    }
    await this.writer.flushed();

    if (report.keep_alive && report.ended_by === 'complete') this.ctx.deps.pool.release(conn);
    else this.ctx.deps.pool.discard(conn);

    const resolvedFacts: ResponseFacts = facts ?? {};
    const contract = this.ctx.plan.binding.idempotency !== null && entry.idempotency !== undefined ? entry.idempotency : null;
    const classification = classify(
      observationFromReport(report, resolvedFacts, contract === null ? null : { in_use_status: contract.in_use_status, mismatch_status: contract.mismatch_status }),
    );
    await this.ctx.fault(FaultPoint.before_response_complete);
    if (this.writer.silenced) {
      // Another worker may own the invocation now; it will recover the attempt.
      this.ctx.deps.log.error('attempt.abandoned', { invocation_id: this.ctx.invocationId, attempt: this.ctx.plan.attempt });
      return 'ack';
    }

    const complete = status !== null && report.body_complete;
    const redirect = complete ? this.redirectToFollow(status, report, bound, entry, credential, classification) : null;
    if (complete) await this.commitResponse(report, status, entry, chunks, classification, resolvedFacts, redirect);
    else await this.writer.append(EventType.REMOTE_OUTCOME_UNKNOWN, unknownData(classification, report, resolvedFacts));
    this.ctx.deps.log.info('attempt.resolved', {
      invocation_id: this.ctx.invocationId,
      attempt: this.ctx.plan.attempt,
      outcome: classification.outcome,
      code: classification.code,
      status,
      follows_redirect: redirect !== null,
    });
    if (!this.writer.silenced) await this.ctx.lease.release();
    return 'ack';
  }

  /** Stores the result first, then says so in the journal; a store that fails is said instead. */
  private async commitResponse(
    report: HttpExchangeReport,
    status: number,
    entry: TargetPolicy,
    chunks: readonly Uint8Array[],
    classification: Classification,
    facts: ResponseFacts,
    redirect: RedirectToFollow | null,
  ): Promise<void> {
    const toStore = resultToStore({
      invocation_id: this.ctx.invocationId,
      attempt: this.ctx.plan.attempt,
      status,
      report,
      entry,
      chunks,
      classification,
      secretForms: this.ctx.forms,
    });
    let stored;
    try {
      stored = await this.writer.store(() => putHttpResult(this.ctx.deps.res, toStore));
    } catch (err) {
      this.ctx.deps.log.error('result.store_failed', { invocation_id: this.ctx.invocationId, error: errorName(err) });
      const failed = classify({ kind: 'result_store_failed', outcome: classification.outcome, response_complete_durable: false });
      await this.writer.append(EventType.REMOTE_OUTCOME_UNKNOWN, {
        ...classificationData(failed),
        ...exchangeFlags(report),
        response_status: status,
        diagnostic: `result_store:${errorName(err)}`,
      });
      return;
    }
    const data = completeData(classification, report, facts, stored);
    if (redirect !== null) data['redirect'] = { status: redirect.status, location: redirect.location };
    await this.writer.append(EventType.REMOTE_RESPONSE_COMPLETE, data, EvidenceSource.remote_response);
  }

  /**
   * `redirects: same_origin`: a complete, committed 3xx whose Location stays
   * on the attempt's origin is followed as the next attempt, while the
   * budget has one left and the caller has not cancelled. The fold applies
   * the same conditions, so a follow-up it would refuse is never planned.
   */
  private redirectToFollow(
    status: number,
    report: HttpExchangeReport,
    bound: BoundTarget,
    entry: TargetPolicy,
    credential: ReleasedCredential,
    classification: Classification,
  ): RedirectToFollow | null {
    if (entry.redirects !== 'same_origin') return null;
    if (classification.outcome !== Outcome.committed || classification.code !== null) return null;
    if (this.ctx.plan.attempt >= this.ctx.plan.binding.budget) return null;
    if (hasCancel(this.ctx.journal.history)) return null;
    const location = sameOriginLocation({
      status,
      headers: report.headers ?? [],
      bound,
      secretForms: this.ctx.forms,
      ...(credential.type === CredentialType.http_query && credential.param !== undefined ? { queryParam: credential.param } : {}),
    });
    return location === null ? null : { status, location };
  }
}
