import { promises as dns } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileDnsServer, type HostileDnsServer } from './hostile-dns-server.js';

let server: HostileDnsServer;
let resolver: dns.Resolver;

beforeAll(async () => {
  server = await startHostileDnsServer({ addresses: { 'api.postern.test': '127.0.0.1' } });
  resolver = new dns.Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([server.address]);
});

afterAll(async () => {
  await server.close();
});

describe('the hostile DNS server', () => {
  it('answers a listed name with its address', async () => {
    await expect(resolver.resolve4('api.postern.test')).resolves.toEqual(['127.0.0.1']);
    expect(server.queries('api.postern.test')).toBe(1);
  });

  it('answers an unknown name with NXDOMAIN', async () => {
    await expect(resolver.resolve4('nowhere.postern.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('answers a servfail. name with a temporary failure', async () => {
    await expect(resolver.resolve4('servfail.postern.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    expect(server.queries()).toBeGreaterThanOrEqual(3);
  });
});
