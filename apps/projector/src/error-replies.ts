import { BadRequestException, NotFoundException } from '@nestjs/common';
import { Code, requestError, type ErrorReply } from '@postern/contract';
import type { QueryDefect } from './list-query.js';

/** `{"error": ...}` for a request the projector cannot use, naming the field to correct. */
export function badRequestReply(field?: string, message?: string): ErrorReply {
  return requestError(Code.BAD_REQUEST, message ?? 'The request cannot be used as it is.', field);
}

export function badRequest(defect: QueryDefect): BadRequestException {
  return new BadRequestException(badRequestReply(defect.field, defect.message));
}

export function notFound(): NotFoundException {
  return new NotFoundException(requestError(Code.NOT_FOUND));
}

/**
 * A replay that failed part way (the journal or the database went away). No
 * code of the contract describes the projector's own failure, so the error
 * carries a message only; the read model resumes from its checkpoint.
 */
export function unavailableReply(): { error: { message: string } } {
  return { error: { message: 'The replay did not complete; the read model resumes from its checkpoint.' } };
}
