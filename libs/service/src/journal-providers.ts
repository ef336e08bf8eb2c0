import { randomBytes } from 'node:crypto';
import type { FactoryProvider, InjectionToken } from '@nestjs/common';
import { connectNats, ensureJournal, Journal, type JournalResources } from '@postern/journal';

export interface JournalProviderOptions {
  /** `intake`, `credential`, `delivery`: names the connection and the journal writer. */
  service: string;
  servers: string[];
  prefix: string;
  /** Token for the connection and its JetStream handles (streams, buckets, stores ensured). */
  resources: InjectionToken;
  /** Token for a `Journal` writing as this process. */
  journal: InjectionToken;
}

/**
 * The journal wiring a service needs: one NATS connection with the journal's
 * streams, buckets and stores ensured, and a `Journal` on it. The app's own
 * shutdown hook drains the connection once the transport stopped.
 */
export function journalProviders(options: JournalProviderOptions): FactoryProvider[] {
  const { service, servers, prefix } = options;
  return [
    {
      provide: options.resources,
      useFactory: async (): Promise<JournalResources> => {
        const nc = await connectNats({ servers, name: `${prefix}-${service}` });
        try {
          return await ensureJournal(nc, prefix);
        } catch (err) {
          await nc.close().catch(() => undefined);
          throw err;
        }
      },
    },
    {
      provide: options.journal,
      inject: [options.resources],
      // One writer name per process, so two replicas racing on one invocation tell their appends apart.
      useFactory: (res: JournalResources): Journal => new Journal(res, prefix, `${service}-${randomBytes(6).toString('hex')}`),
    },
  ];
}
