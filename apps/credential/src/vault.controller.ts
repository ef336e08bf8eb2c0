import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CREDENTIAL_SUBJECTS } from './credential.constants.js';
import { VaultOperations, type VaultReply } from './vault-operations.js';

/** Operator subjects of the vault; each hands the raw payload to its operation. */
@Controller()
export class VaultController {
  constructor(private readonly ops: VaultOperations) {}

  @MessagePattern(CREDENTIAL_SUBJECTS.vaultStatus)
  status(@Payload() input: unknown): VaultReply {
    return this.ops.status(input);
  }

  @MessagePattern(CREDENTIAL_SUBJECTS.vaultInit)
  init(@Payload() input: unknown): Promise<VaultReply> {
    return this.ops.init(input);
  }

  @MessagePattern(CREDENTIAL_SUBJECTS.vaultUnlock)
  unlock(@Payload() input: unknown): Promise<VaultReply> {
    return this.ops.unlock(input);
  }

  @MessagePattern(CREDENTIAL_SUBJECTS.vaultLock)
  lock(@Payload() input: unknown): VaultReply {
    return this.ops.lock(input);
  }
}
