// No container engine runs here; this checks what can be checked without
// one: the compose file parses, and every service is wired as documented.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { SERVICE_ORDER } from './scripts/service-apps.mjs';

const text = readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8');
const doc = parseDocument(text, { merge: true });
const compose = doc.toJS({ maxAliasCount: 100 });

describe('docker-compose.yml', () => {
  it('parses without errors', () => {
    expect(doc.errors).toEqual([]);
  });

  it('builds one service per app from the Dockerfile, all on the compose NATS', () => {
    for (const name of SERVICE_ORDER) {
      const service = compose.services[name];
      expect(service.build.args.SERVICE).toBe(name);
      expect(service.environment.NATS_URL).toBe('nats://nats:4222');
      expect(service.volumes).toContain('postern-home:/var/lib/postern');
    }
  });

  it('runs NATS with JetStream on a volume and the projector on PostgreSQL', () => {
    expect(compose.services.nats.image).toBe('nats:2.10');
    expect(compose.services.nats.command).toEqual(expect.arrayContaining(['-js', '-sd', '/data']));
    expect(compose.services.postgres.image).toBe('postgres:15');
    const projector = compose.services.projector;
    expect(projector.environment.POSTERN_DB_URL).toBe('postgres://postern:postern@postgres:5432/postern');
    expect(projector.ports).toContain('8640:8640');
    expect(projector.healthcheck.test.join(' ')).toContain('/healthz');
    expect(projector.depends_on.postgres.condition).toBe('service_healthy');
  });

  it('selects the service in the image by build argument', () => {
    const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile).toMatch(/^ARG SERVICE=/m);
    expect(dockerfile).toContain('node apps/${SERVICE}/dist/main.js');
  });
});
