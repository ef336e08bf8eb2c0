import { describe, expect, it } from 'vitest';
import { ProjectorConfigError } from './errors.js';
import { bindHost, configFromEnv, DEFAULT_HTTP_PORT } from './projector-config.js';

describe('configFromEnv', () => {
  it('uses the documented defaults', () => {
    expect(configFromEnv({})).toEqual({
      natsUrl: 'nats://127.0.0.1:4222',
      prefix: 'postern',
      home: './.postern',
      dbUrl: undefined,
      httpPort: DEFAULT_HTTP_PORT,
      apiToken: undefined,
    });
  });

  it('reads every variable', () => {
    const c = configFromEnv({
      NATS_URL: 'nats://127.0.0.1:4333',
      POSTERN_PREFIX: 'p2',
      POSTERN_HOME: '/tmp/h',
      POSTERN_DB_URL: 'postgres://u@127.0.0.1/db',
      POSTERN_HTTP_PORT: '9000',
      POSTERN_API_TOKEN: 't',
    });
    expect(c).toEqual({
      natsUrl: 'nats://127.0.0.1:4333',
      prefix: 'p2',
      home: '/tmp/h',
      dbUrl: 'postgres://u@127.0.0.1/db',
      httpPort: 9000,
      apiToken: 't',
    });
  });

  it('refuses a port that is not one', () => {
    expect(() => configFromEnv({ POSTERN_HTTP_PORT: 'http' })).toThrow(ProjectorConfigError);
    expect(() => configFromEnv({ POSTERN_HTTP_PORT: '70000' })).toThrow(ProjectorConfigError);
  });
});

describe('bindHost', () => {
  it('binds to loopback only without a token and to all interfaces with one', () => {
    const base = configFromEnv({});
    expect(bindHost(base)).toBe('127.0.0.1');
    expect(bindHost({ ...base, apiToken: 'x' })).toBe('0.0.0.0');
  });
});
