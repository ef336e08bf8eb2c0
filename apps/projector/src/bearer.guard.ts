import { Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { bearerMatches } from './bearer-token.js';
import type { ProjectorConfig } from './projector-config.js';
import { IS_PUBLIC, PROJECTOR_CONFIG } from './projector.constants.js';

/** With POSTERN_API_TOKEN set, every route but the public ones needs `Authorization: Bearer <token>`. */
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(
    @Inject(PROJECTOR_CONFIG) private readonly config: ProjectorConfig,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const token = this.config.apiToken;
    if (!token) return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()])) return true;
    const req = ctx.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    const header = req.headers['authorization'];
    if (bearerMatches(Array.isArray(header) ? undefined : header, token)) return true;
    ctx.switchToHttp().getResponse<{ setHeader(name: string, value: string): void }>().setHeader('WWW-Authenticate', 'Bearer');
    // No code of the contract fits an HTTP authentication failure, so the body carries a message only.
    throw new UnauthorizedException({ error: { message: 'A valid bearer token is required.' } });
  }
}
