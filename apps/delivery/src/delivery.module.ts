import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { connectNats, ensureJournal, Journal, type JournalResources } from '@postern/journal';
import { ensurePolicyFile, PolicyStore } from '@postern/policy';
import { AckResult } from './ack-result.js';
import { AwaitAction } from './await-action.js';
import type { DeliveryConfig } from './delivery-config.js';
import { stdoutLog, type DeliveryLog } from './delivery-log.js';
import {
  DEFAULT_TUNING,
  DELIVERY_CLOCK,
  DELIVERY_CONFIG,
  DELIVERY_JOURNAL,
  DELIVERY_LOG,
  DELIVERY_POLICY,
  DELIVERY_PREFIX,
  DELIVERY_RESOURCES,
  DELIVERY_TUNING,
  type Clock,
  type DeliveryTuning,
} from './delivery.constants.js';
import { DeliveryController } from './delivery.controller.js';
import { DeliveryConfigError } from './errors.js';
import { FetchResult } from './fetch-result.js';
import { RecordReader } from './record-reader.js';
import { ResultCommitHandler } from './result-commit.handler.js';
import { ResultPartAction } from './result-part.js';
import { ResultReader } from './result-reader.js';

export interface DeliveryModuleOptions {
  /** Where the service reports what it does (default: JSON lines on stdout). */
  log?: DeliveryLog;
  /** Epoch milliseconds for retention and event times (default `Date.now`). */
  now?: Clock;
  tuning?: Partial<DeliveryTuning>;
}

/** Closes the journal connection once the transport and the consumer have stopped. */
@Injectable()
class DeliveryShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(DELIVERY_RESOURCES) private readonly res: JournalResources,
    @Inject(DELIVERY_LOG) private readonly log: DeliveryLog,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.res.nc.drain().catch(() => undefined);
    this.log.info('delivery.stopped');
  }
}

@Module({})
export class DeliveryModule {
  static register(config: DeliveryConfig, options: DeliveryModuleOptions = {}): DynamicModule {
    if (config.prefix !== DELIVERY_PREFIX) {
      // The handlers' subjects were fixed from POSTERN_PREFIX at import time.
      throw new DeliveryConfigError(
        `prefix ${config.prefix} differs from POSTERN_PREFIX (${DELIVERY_PREFIX}) the subjects were built from`,
      );
    }
    const log = options.log ?? stdoutLog('delivery');
    const tuning: DeliveryTuning = { ...DEFAULT_TUNING, ...options.tuning };
    return {
      module: DeliveryModule,
      controllers: [DeliveryController],
      providers: [
        { provide: DELIVERY_CONFIG, useValue: config },
        { provide: DELIVERY_LOG, useValue: log },
        { provide: DELIVERY_CLOCK, useValue: options.now ?? Date.now },
        { provide: DELIVERY_TUNING, useValue: tuning },
        {
          provide: DELIVERY_RESOURCES,
          useFactory: async (): Promise<JournalResources> => {
            const nc = await connectNats({ servers: config.servers, name: `${config.prefix}-delivery` });
            try {
              return await ensureJournal(nc, config.prefix);
            } catch (err) {
              await nc.close().catch(() => undefined);
              throw err;
            }
          },
        },
        {
          provide: DELIVERY_JOURNAL,
          inject: [DELIVERY_RESOURCES],
          // One writer name per process, so two replicas racing on one invocation tell their appends apart.
          useFactory: (res: JournalResources): Journal =>
            new Journal(res, config.prefix, `delivery-${randomBytes(6).toString('hex')}`),
        },
        {
          provide: DELIVERY_POLICY,
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
        ResultReader,
        AwaitAction,
        FetchResult,
        ResultPartAction,
        AckResult,
        ResultCommitHandler,
        DeliveryShutdown,
      ],
    };
  }
}
