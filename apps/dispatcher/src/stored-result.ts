import type { Classification, TargetPolicy } from '@postern/contract';
import type { PutHttpResultInput } from '@postern/journal';
import { filterResponseHeaders, redact, redactText, type HttpExchangeReport } from '@postern/transport-http';

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * What the result store keeps of a complete response (CONTRACT.md section
 * 5): allow-listed headers plus the policy's, every form of the injected
 * secret replaced in headers and body, and the body only when it is whole.
 */
export function resultToStore(input: {
  invocation_id: string;
  attempt: number;
  status: number;
  report: HttpExchangeReport;
  entry: TargetPolicy;
  chunks: readonly Uint8Array[];
  classification: Classification;
  secretForms: readonly string[];
}): PutHttpResultInput {
  const headers = filterResponseHeaders(input.report.headers ?? [], input.entry.response_headers);
  for (const name of Object.keys(headers)) headers[name] = redactText(headers[name] as string, input.secretForms);
  const whole = input.classification.complete !== false && !input.report.body_over_limit && input.report.body_complete;
  return {
    invocation_id: input.invocation_id,
    attempt: input.attempt,
    status: input.status,
    headers,
    complete: whole,
    body: whole ? redact(concat(input.chunks), input.secretForms) : null,
  };
}
