import { Inject, Injectable, type InjectionToken, type OnApplicationShutdown, type Type } from '@nestjs/common';
import type { JournalResources } from '@postern/journal';
import type { ServiceLog } from './json-log.js';

/**
 * A provider class that drains the journal connection once the transport has
 * stopped taking requests, then logs `<service>.stopped`. A class (not a
 * factory) with the same injections as the services' own shutdown hooks, so
 * Nest runs it at the same point of the shutdown order.
 */
export function journalShutdown(resources: InjectionToken, log: InjectionToken, service: string): Type<OnApplicationShutdown> {
  @Injectable()
  class JournalShutdown implements OnApplicationShutdown {
    constructor(
      @Inject(resources) private readonly res: JournalResources,
      @Inject(log) private readonly log: ServiceLog,
    ) {}

    async onApplicationShutdown(): Promise<void> {
      await this.res.nc.drain().catch(() => undefined);
      this.log.info(`${service}.stopped`);
    }
  }
  return JournalShutdown;
}
