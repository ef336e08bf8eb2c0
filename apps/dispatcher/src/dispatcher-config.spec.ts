import { describe, expect, it } from 'vitest';
import { readDispatcherConfig } from './dispatcher-config.js';
import { FaultAction, FaultPoint, noFaults, processFaultSwitch } from './fault-point.js';

describe('readDispatcherConfig', () => {
  it('falls back to the contract defaults', () => {
    const c = readDispatcherConfig({});
    expect(c).toMatchObject({ servers: ['nats://127.0.0.1:4222'], prefix: 'postern', home: './.postern', fault: null, faultAction: 'kill', concurrency: 8 });
    expect(c.configPath).toBe('.postern/postern.yaml');
    expect(c.instanceId).toMatch(/^d-[0-9a-f]{10}$/);
  });

  it('reads servers, prefix, home, config, fault point and concurrency', () => {
    const c = readDispatcherConfig({
      NATS_URL: 'nats://a:1, nats://b:2',
      POSTERN_PREFIX: 'p2',
      POSTERN_HOME: '/srv/postern',
      POSTERN_CONFIG: '/etc/postern.yaml',
      POSTERN_FAULT: 'after_request_sent',
      POSTERN_DISPATCH_CONCURRENCY: '3',
    });
    expect(c).toMatchObject({
      servers: ['nats://a:1', 'nats://b:2'],
      prefix: 'p2',
      home: '/srv/postern',
      configPath: '/etc/postern.yaml',
      fault: FaultPoint.after_request_sent,
      faultAction: FaultAction.kill,
      concurrency: 3,
    });
  });

  it('reads a freeze instead of a kill after the point, and ignores an unknown action', () => {
    expect(readDispatcherConfig({ POSTERN_FAULT: 'after_lease_acquired:stop' })).toMatchObject({
      fault: FaultPoint.after_lease_acquired,
      faultAction: FaultAction.stop,
    });
    expect(readDispatcherConfig({ POSTERN_FAULT: 'after_lease_acquired:pause' }).fault).toBeNull();
  });

  it('ignores an unknown fault point and an unusable concurrency', () => {
    const c = readDispatcherConfig({ POSTERN_FAULT: 'everywhere', POSTERN_DISPATCH_CONCURRENCY: '0' });
    expect(c.fault).toBeNull();
    expect(c.concurrency).toBe(8);
  });

  it('gives every process its own instance id', () => {
    expect(readDispatcherConfig({}).instanceId).not.toBe(readDispatcherConfig({}).instanceId);
  });
});

describe('fault switch', () => {
  it('is inert unless a point is configured, and armed only at that point', () => {
    expect(processFaultSwitch(null)).toBe(noFaults);
    const s = processFaultSwitch(FaultPoint.after_dispatch_started);
    expect(s.armed(FaultPoint.after_dispatch_started)).toBe(true);
    expect(s.armed(FaultPoint.after_lease_acquired)).toBe(false);
    expect(s.kills).toBe(true);
    expect(processFaultSwitch(FaultPoint.after_lease_acquired, FaultAction.stop).kills).toBe(false);
  });
});
