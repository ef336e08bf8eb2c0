import { describe, expect, it } from 'vitest';
import { readHome, readPrefix, readServiceConfig } from './service-config.js';

describe('readServiceConfig', () => {
  it('reads a server list, prefix, home and config path, trimming blanks', () => {
    expect(
      readServiceConfig({ NATS_URL: ' nats://a:1, ,nats://b:2 ', POSTERN_PREFIX: ' p2 ', POSTERN_HOME: '/h', POSTERN_CONFIG: '/c.yaml' }),
    ).toEqual({ servers: ['nats://a:1', 'nats://b:2'], prefix: 'p2', home: '/h', configPath: '/c.yaml' });
  });

  it('puts the policy file in the home when no config path is given', () => {
    expect(readServiceConfig({ POSTERN_HOME: '/srv/p' }).configPath).toBe('/srv/p/postern.yaml');
  });

  it('treats blank values as unset', () => {
    expect(readServiceConfig({ NATS_URL: ' , ', POSTERN_PREFIX: '  ', POSTERN_HOME: ' ' })).toMatchObject({
      servers: ['nats://127.0.0.1:4222'],
      prefix: 'postern',
      home: './.postern',
    });
    expect(readPrefix({ POSTERN_PREFIX: '' })).toBe('postern');
    expect(readHome({ POSTERN_HOME: '' })).toBe('./.postern');
  });
});
