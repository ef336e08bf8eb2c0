import { startHostileDnsServer, type HostileDnsServer } from '@postern/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolverLookup } from './resolver-lookup.js';

let dns: HostileDnsServer;

beforeAll(async () => {
  dns = await startHostileDnsServer({ addresses: { 'api.postern.test': '127.0.0.1' } });
});
afterAll(async () => {
  await dns.close();
});

describe('the configured resolver', () => {
  it('asks the configured server', async () => {
    await expect(resolverLookup([dns.address])('api.postern.test')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(dns.queries('api.postern.test')).toBe(1);
  });
  it('passes NXDOMAIN and temporary failures on with their codes', async () => {
    await expect(resolverLookup([dns.address])('nowhere.postern.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolverLookup([dns.address])('servfail.postern.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
  });
  it('keeps localhost on loopback without a query', async () => {
    const before = dns.queries();
    await expect(resolverLookup([dns.address])('localhost')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(dns.queries()).toBe(before);
  });
});
