import { promises as dns } from 'node:dns';
import type { Lookup, ResolvedAddress } from '@postern/transport-net';

/**
 * A lookup that asks the given DNS servers (`POSTERN_DNS_SERVERS`) instead of
 * the machine's resolver. `localhost` stays loopback without a query
 * (RFC 6761), as the system resolver would answer it from its hosts file.
 */
export function resolverLookup(servers: string[]): Lookup {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers(servers);
  return async (host) => {
    if (host.toLowerCase() === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
    const v4 = await resolver.resolve4(host).then(
      (addresses) => addresses.map((address): ResolvedAddress => ({ address, family: 4 })),
      (err: NodeJS.ErrnoException) => (err.code === 'ENODATA' ? [] : Promise.reject(err)),
    );
    if (v4.length > 0) return v4;
    const v6 = await resolver.resolve6(host).catch((err: NodeJS.ErrnoException) => (err.code === 'ENODATA' ? [] : Promise.reject(err)));
    return v6.map((address): ResolvedAddress => ({ address, family: 6 }));
  };
}
