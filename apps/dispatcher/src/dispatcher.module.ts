import { Module, type DynamicModule } from '@nestjs/common';
import { connectNats, ensureJournal, type JournalResources } from '@postern/journal';
import { ensurePolicyFile, PolicyStore } from '@postern/policy';
import { policyProvider } from '@postern/service';
import type { DispatcherConfig } from './dispatcher-config.js';
import { stdoutLog } from './dispatcher-log.js';
import {
  DISPATCHER_CONFIG,
  DISPATCHER_LOG,
  DISPATCHER_OPTIONS,
  DISPATCHER_POLICY,
  DISPATCHER_RESOURCES,
} from './dispatcher.constants.js';
import { DispatcherService, type DispatcherRuntimeOptions } from './dispatcher.service.js';

/** The dispatcher: no request-reply handlers, only journal consumers, so an application context is enough. */
@Module({})
export class DispatcherModule {
  static register(config: DispatcherConfig, options: DispatcherRuntimeOptions = {}): DynamicModule {
    const log = options.log ?? stdoutLog('dispatcher');
    return {
      module: DispatcherModule,
      providers: [
        { provide: DISPATCHER_CONFIG, useValue: config },
        { provide: DISPATCHER_LOG, useValue: log },
        { provide: DISPATCHER_OPTIONS, useValue: options },
        {
          provide: DISPATCHER_RESOURCES,
          useFactory: async (): Promise<JournalResources> => {
            const nc = await connectNats({ servers: config.servers, name: `${config.prefix}-dispatcher-${config.instanceId}` });
            try {
              return await ensureJournal(nc, config.prefix);
            } catch (err) {
              await nc.close().catch(() => undefined);
              throw err;
            }
          },
        },
        policyProvider(DISPATCHER_POLICY, config.configPath, log, {
          ensureFile: ensurePolicyFile,
          open: (path, hooks) => PolicyStore.open(path, hooks),
        }),
        DispatcherService,
      ],
      exports: [DispatcherService],
    };
  }
}
