import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { CredentialMeta, ErrorReply } from '@postern/contract';
import { CredentialOperations } from './credential-operations.js';
import { CREDENTIAL_SUBJECTS } from './credential.constants.js';
import { SecretRelease, type ReleaseReply } from './secret-release.js';

/** Operator subjects of credentials, and the service-only release to a dispatcher attempt. */
@Controller()
export class CredentialsController {
  constructor(
    private readonly ops: CredentialOperations,
    private readonly release: SecretRelease,
  ) {}

  @MessagePattern(CREDENTIAL_SUBJECTS.credentialsPut)
  put(@Payload() input: unknown): Promise<{ credential: CredentialMeta } | ErrorReply> {
    return this.ops.put(input);
  }

  @MessagePattern(CREDENTIAL_SUBJECTS.credentialsList)
  list(@Payload() input: unknown): { credentials: CredentialMeta[] } | ErrorReply {
    return this.ops.list(input);
  }

  @MessagePattern(CREDENTIAL_SUBJECTS.credentialsRevoke)
  revoke(@Payload() input: unknown): Promise<{ credential: CredentialMeta } | ErrorReply> {
    return this.ops.revoke(input);
  }

  @MessagePattern(CREDENTIAL_SUBJECTS.credentialsRelease)
  releaseSecret(@Payload() input: unknown): Promise<ReleaseReply> {
    return this.release.run(input);
  }
}
