import { Module, type DynamicModule } from '@nestjs/common';
import { ensurePolicyFile, PolicyStore } from '@postern/policy';
import { journalProviders, journalShutdown, jsonLog, policyProvider, type ServiceConfig, type ServiceLog } from '@postern/service';
import { AckResult } from './ack-result.js';
import { AwaitAction } from './await-action.js';
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
import { ResultHandOver } from './result-hand-over.js';
import { ResultPartAction } from './result-part.js';
import { ResultReader } from './result-reader.js';

export interface DeliveryModuleOptions {
  /** Where the service reports what it does (default: JSON lines on stdout). */
  log?: ServiceLog;
  /** Epoch milliseconds for retention and event times (default `Date.now`). */
  now?: Clock;
  tuning?: Partial<DeliveryTuning>;
}

@Module({})
export class DeliveryModule {
  static register(config: ServiceConfig, options: DeliveryModuleOptions = {}): DynamicModule {
    if (config.prefix !== DELIVERY_PREFIX) {
      // The handlers' subjects were fixed from POSTERN_PREFIX at import time.
      throw new DeliveryConfigError(
        `prefix ${config.prefix} differs from POSTERN_PREFIX (${DELIVERY_PREFIX}) the subjects were built from`,
      );
    }
    const log = options.log ?? jsonLog('delivery');
    const tuning: DeliveryTuning = { ...DEFAULT_TUNING, ...options.tuning };
    return {
      module: DeliveryModule,
      controllers: [DeliveryController],
      providers: [
        { provide: DELIVERY_CONFIG, useValue: config },
        { provide: DELIVERY_LOG, useValue: log },
        { provide: DELIVERY_CLOCK, useValue: options.now ?? Date.now },
        { provide: DELIVERY_TUNING, useValue: tuning },
        ...journalProviders({
          service: 'delivery',
          servers: config.servers,
          prefix: config.prefix,
          resources: DELIVERY_RESOURCES,
          journal: DELIVERY_JOURNAL,
        }),
        policyProvider(DELIVERY_POLICY, config.configPath, log, {
          ensureFile: ensurePolicyFile,
          open: (path, hooks) => PolicyStore.open(path, hooks),
        }),
        RecordReader,
        ResultReader,
        ResultHandOver,
        AwaitAction,
        FetchResult,
        ResultPartAction,
        AckResult,
        ResultCommitHandler,
        journalShutdown(DELIVERY_RESOURCES, DELIVERY_LOG, 'delivery'),
      ],
    };
  }
}
