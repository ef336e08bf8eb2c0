import type { FactoryProvider, InjectionToken } from '@nestjs/common';
import type { LogFields, ServiceLog } from './json-log.js';

/** A refused policy edit, with the problems the policy library names (path and reason each). */
export interface PolicyRefusal {
  name: string;
  errors?: readonly { path: string; reason: string }[];
}

/** What a service hears from a watched policy file. */
export interface PolicyWatchHooks<Policy> {
  onReload(policy: Policy, generation: number): void;
  onError(err: PolicyRefusal): void;
}

/**
 * The log fields of a refused edit: what to fix, where. A policy file holds
 * no secrets (those live in the vault), so its paths and reasons may be shown.
 */
export function policyRefusalFields(err: PolicyRefusal): LogFields {
  if (err.errors === undefined || err.errors.length === 0) return { error: err.name };
  return { error: err.name, problems: err.errors.map((e) => `${e.path}: ${e.reason}`).join('; '), kept: 'the last good policy' };
}

/**
 * How to create and open the policy file: `ensurePolicyFile` and
 * `PolicyStore.open` of the policy library, passed in by the app so this
 * library depends on no policy implementation.
 */
export interface PolicyFileAccess<Store, Policy> {
  ensureFile(path: string): Promise<{ created: boolean }>;
  open(path: string, hooks: PolicyWatchHooks<Policy>): Promise<Store>;
}

/** Provides the policy store on `configPath`, writing the default file first if there is none, and logging reloads and refusals. */
export function policyProvider<Store, Policy>(
  provide: InjectionToken,
  configPath: string,
  log: ServiceLog,
  access: PolicyFileAccess<Store, Policy>,
): FactoryProvider<Promise<Store>> {
  return {
    provide,
    useFactory: async (): Promise<Store> => {
      const { created } = await access.ensureFile(configPath);
      if (created) log.info('policy.created', { path: configPath });
      return access.open(configPath, {
        onReload: (_policy, generation) => log.info('policy.reloaded', { generation }),
        onError: (err) => log.error('policy.refused', policyRefusalFields(err)),
      });
    },
  };
}
