import { Module, type DynamicModule } from '@nestjs/common';
import { ensurePolicyFile, PolicyStore } from '@postern/policy';
import { journalProviders, journalShutdown, jsonLog, policyProvider, type ServiceConfig, type ServiceLog } from '@postern/service';
import { CancelAction } from './cancel-action.js';
import { IntakeConfigError } from './errors.js';
import { GetAction } from './get-action.js';
import {
  INTAKE_CONFIG,
  INTAKE_JOURNAL,
  INTAKE_LOG,
  INTAKE_POLICY,
  INTAKE_PREFIX,
  INTAKE_RESOURCES,
} from './intake.constants.js';
import { IntakeController } from './intake.controller.js';
import { RecordReader } from './record-reader.js';
import { SubmitAction } from './submit-action.js';

export interface IntakeModuleOptions {
  /** Where the intake reports what it does (default: JSON lines on stdout). */
  log?: ServiceLog;
}

@Module({})
export class IntakeModule {
  static register(config: ServiceConfig, options: IntakeModuleOptions = {}): DynamicModule {
    if (config.prefix !== INTAKE_PREFIX) {
      // The handlers' subjects were fixed from POSTERN_PREFIX at import time.
      throw new IntakeConfigError(
        `prefix ${config.prefix} differs from POSTERN_PREFIX (${INTAKE_PREFIX}) the subjects were built from`,
      );
    }
    const log = options.log ?? jsonLog('intake');
    return {
      module: IntakeModule,
      controllers: [IntakeController],
      providers: [
        { provide: INTAKE_CONFIG, useValue: config },
        { provide: INTAKE_LOG, useValue: log },
        ...journalProviders({
          service: 'intake',
          servers: config.servers,
          prefix: config.prefix,
          resources: INTAKE_RESOURCES,
          journal: INTAKE_JOURNAL,
        }),
        policyProvider(INTAKE_POLICY, config.configPath, log, {
          ensureFile: ensurePolicyFile,
          open: (path, hooks) => PolicyStore.open(path, hooks),
        }),
        RecordReader,
        SubmitAction,
        GetAction,
        CancelAction,
        journalShutdown(INTAKE_RESOURCES, INTAKE_LOG, 'intake'),
      ],
    };
  }
}
