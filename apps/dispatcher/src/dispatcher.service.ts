import { dirname } from 'node:path';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { EventType } from '@postern/contract';
import { durableConsumer, type DurableConsumer, type JournalResources } from '@postern/journal';
import type { PolicyStore } from '@postern/policy';
import { ConnectionPool } from '@postern/transport-http';
import type { Lookup } from '@postern/transport-net';
import { DispatchHandler } from './dispatch.handler.js';
import type { DispatcherConfig } from './dispatcher-config.js';
import type { DispatcherDeps } from './dispatcher-deps.js';
import { errorName, type DispatcherLog } from './dispatcher-log.js';
import {
  DISPATCHER_CONFIG,
  DISPATCHER_DURABLE,
  DISPATCHER_LOG,
  DISPATCHER_OPTIONS,
  DISPATCHER_POLICY,
  DISPATCHER_RESOURCES,
} from './dispatcher.constants.js';
import { processFaultSwitch, type FaultSwitch } from './fault-point.js';
import { resolverLookup } from './resolver-lookup.js';
import { LeaseStore } from './lease-store.js';
import { Recovery } from './recovery.js';

/** Seams for tests; production leaves them unset. */
export interface DispatcherRuntimeOptions {
  log?: DispatcherLog;
  fault?: FaultSwitch;
  lookup?: Lookup;
  now?: () => number;
  /** Default: half the policy's lease. */
  recoveryIntervalMs?: number;
  releaseTimeoutMs?: number;
  ackWaitMs?: number;
}

const DEFAULT_RELEASE_TIMEOUT_MS = 5_000;

/** Starts the consumers and the recovery pass, and stops them in order. */
@Injectable()
export class DispatcherService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly deps: DispatcherDeps;
  readonly recovery: Recovery;
  readonly handler: DispatchHandler;
  private consumers: DurableConsumer[] = [];

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    @Inject(DISPATCHER_RESOURCES) private readonly res: JournalResources,
    @Inject(DISPATCHER_POLICY) private readonly policy: PolicyStore,
    @Inject(DISPATCHER_LOG) private readonly log: DispatcherLog,
    @Inject(DISPATCHER_OPTIONS) private readonly options: DispatcherRuntimeOptions,
  ) {
    this.deps = {
      res,
      prefix: config.prefix,
      instanceId: config.instanceId,
      policy,
      configDir: dirname(config.configPath),
      pool: new ConnectionPool(),
      leases: new LeaseStore(res.kv.leases),
      log,
      fault:
        options.fault ??
        processFaultSwitch(config.fault, config.faultAction, (point) => log.info('fault.stopping', { point, pid: process.pid })),
      now: options.now ?? Date.now,
      ...(options.lookup !== undefined
        ? { lookup: options.lookup }
        : config.dnsServers.length > 0
          ? { lookup: resolverLookup(config.dnsServers) }
          : {}),
      releaseTimeoutMs: options.releaseTimeoutMs ?? DEFAULT_RELEASE_TIMEOUT_MS,
      inFlight: new Set<string>(),
    };
    this.recovery = new Recovery(this.deps);
    this.handler = new DispatchHandler(this.deps, this.recovery);
  }

  async onApplicationBootstrap(): Promise<void> {
    const common = {
      durable: DISPATCHER_DURABLE,
      eventTypes: [EventType.CREDENTIAL_AUTHORIZED, EventType.RETRY_SCHEDULED],
      handle: (ev: Parameters<DispatchHandler['handle']>[0]) => this.handler.handle(ev),
      ...(this.options.ackWaitMs !== undefined ? { ackWaitMs: this.options.ackWaitMs } : {}),
      onError: (err: unknown, ev: { invocation_id: string }) =>
        this.log.error('dispatch.failed', { invocation_id: ev.invocation_id, error: errorName(err) }),
    };
    // The first creates the consumer; the rest are further pulls on it, so
    // one slow remote does not hold up every other invocation.
    this.consumers.push(await durableConsumer(this.res, common));
    for (let i = 1; i < this.config.concurrency; i++) this.consumers.push(await durableConsumer(this.res, common));
    const interval = this.options.recoveryIntervalMs ?? Math.floor(this.policy.current().dispatch.lease_ms / 2);
    this.recovery.start(interval);
    this.log.info('dispatcher.started', {
      prefix: this.config.prefix,
      instance: this.config.instanceId,
      concurrency: this.config.concurrency,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.recovery.stop();
    await Promise.all(this.consumers.map((c) => c.stop()));
    this.consumers = [];
    this.deps.pool.close();
    await this.res.nc.drain().catch(() => undefined);
    this.log.info('dispatcher.stopped', { instance: this.config.instanceId });
  }
}
