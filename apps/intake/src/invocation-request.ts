import { isMalformedRequest } from '@postern/service';

export type InvocationRequest =
  | { kind: 'id'; invocationId: string }
  | { kind: 'bad_request'; field?: string };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isMalformedRequest(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Reads `{"invocation_id"}`. A body that is not an object or has no string id
 * is BAD_REQUEST; any string is looked up, so an id that cannot exist is
 * NOT_FOUND like any other unknown id.
 */
export function readInvocationRequest(input: unknown): InvocationRequest {
  if (!isPlainObject(input)) return { kind: 'bad_request' };
  const id = input['invocation_id'];
  if (typeof id !== 'string' || id.length === 0) return { kind: 'bad_request', field: 'invocation_id' };
  return { kind: 'id', invocationId: id };
}
