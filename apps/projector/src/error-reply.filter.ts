import { Catch, HttpException, HttpStatus, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { Code, requestError } from '@postern/contract';

interface JsonResponse {
  status(code: number): JsonResponse;
  json(body: unknown): void;
  headersSent?: boolean;
}

function hasErrorBody(v: unknown): v is { error: unknown } {
  return typeof v === 'object' && v !== null && 'error' in v && typeof (v as { error: unknown }).error === 'object';
}

/**
 * Every error leaves the API as `{"error": ...}`: the contract's shape where
 * a code fits (an unknown route is NOT_FOUND), a message otherwise. Internal
 * failures never echo their cause, which may name a query or a file.
 */
@Catch()
export class ErrorReplyFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<JsonResponse>();
    if (res.headersSent) return;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      if (hasErrorBody(body)) {
        res.status(status).json(body);
      } else if (status === HttpStatus.NOT_FOUND) {
        res.status(status).json(requestError(Code.NOT_FOUND, 'No such route.'));
      } else {
        res.status(status).json({ error: { message: exception.message } });
      }
      return;
    }
    console.error('projector: request failed:', exception instanceof Error ? exception.message : exception);
    res.status(HttpStatus.INTERNAL_SERVER_ERROR).json({ error: { message: 'The read model could not answer.' } });
  }
}
