/**
 * Marks a request body that could not be read as JSON. It is a class, not a
 * flag on the payload, so no JSON a caller sends can impersonate it.
 */
export class MalformedRequest {
  constructor(readonly reason: string) {}
}

export function isMalformedRequest(value: unknown): value is MalformedRequest {
  return value instanceof MalformedRequest;
}
