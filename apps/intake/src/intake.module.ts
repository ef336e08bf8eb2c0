import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { connectNats, ensureJournal, Journal, type JournalResources } from '@postern/journal';
import { ensurePolicyFile, PolicyStore } from '@postern/policy';
import { CancelAction } from './cancel-action.js';
import { IntakeConfigError } from './errors.js';
import { GetAction } from './get-action.js';
import type { IntakeConfig } from './intake-config.js';
import { stdoutLog, type IntakeLog } from './intake-log.js';
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
  log?: IntakeLog;
}

/** Closes the journal connection once the transport has stopped taking requests. */
@Injectable()
class IntakeShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(INTAKE_RESOURCES) private readonly res: JournalResources,
    @Inject(INTAKE_LOG) private readonly log: IntakeLog,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.res.nc.drain().catch(() => undefined);
    this.log.info('intake.stopped');
  }
}

@Module({})
export class IntakeModule {
  static register(config: IntakeConfig, options: IntakeModuleOptions = {}): DynamicModule {
    if (config.prefix !== INTAKE_PREFIX) {
      // The handlers' subjects were fixed from POSTERN_PREFIX at import time.
      throw new IntakeConfigError(
        `prefix ${config.prefix} differs from POSTERN_PREFIX (${INTAKE_PREFIX}) the subjects were built from`,
      );
    }
    const log = options.log ?? stdoutLog('intake');
    return {
      module: IntakeModule,
      controllers: [IntakeController],
      providers: [
        { provide: INTAKE_CONFIG, useValue: config },
        { provide: INTAKE_LOG, useValue: log },
        {
          provide: INTAKE_RESOURCES,
          useFactory: async (): Promise<JournalResources> => {
            const nc = await connectNats({ servers: config.servers, name: `${config.prefix}-intake` });
            try {
              return await ensureJournal(nc, config.prefix);
            } catch (err) {
              await nc.close().catch(() => undefined);
              throw err;
            }
          },
        },
        {
          provide: INTAKE_JOURNAL,
          inject: [INTAKE_RESOURCES],
          // One writer name per process, so two intakes racing on one invocation tell their appends apart.
          useFactory: (res: JournalResources): Journal =>
            new Journal(res, config.prefix, `intake-${randomBytes(6).toString('hex')}`),
        },
        {
          provide: INTAKE_POLICY,
          useFactory: async (): Promise<PolicyStore> => {
            const { created } = await ensurePolicyFile(config.configPath);
            if (created) log.info('policy.created', { path: config.configPath });
            return PolicyStore.open(config.configPath, {
              onReload: (_policy, generation) => log.info('policy.reloaded', { generation }),
              onError: (err) => log.error('policy.refused', { error: err.name }),
            });
          },
        },
        RecordReader,
        SubmitAction,
        GetAction,
        CancelAction,
        IntakeShutdown,
      ],
    };
  }
}
