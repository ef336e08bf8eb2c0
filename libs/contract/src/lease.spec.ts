import { describe, expect, it } from 'vitest';
import { leaseIsLive, nextLease, renewedLease, type Lease } from './lease.js';

const claim = { invocation_id: 'act_x', holder: 'd-1', attempt: 1, lease_ms: 1000 };
const held: Lease = { invocation_id: 'act_x', holder: 'd-0', attempt: 1, generation: 3, expires_at_ms: 5000 };

describe('leases', () => {
  it('takes a free invocation at generation 1', () => {
    expect(nextLease(null, claim, 100)).toEqual({ ...claim, lease_ms: undefined, generation: 1, expires_at_ms: 1100 });
  });
  it('refuses while another holder is live, and takes over once it expired, one generation up', () => {
    expect(nextLease(held, claim, 4999)).toBeNull();
    expect(nextLease(held, claim, 5000)).toMatchObject({ holder: 'd-1', generation: 4, expires_at_ms: 6000 });
  });
  it('takes a released lease at once', () => {
    expect(nextLease({ ...held, released: true }, claim, 10)).toMatchObject({ generation: 4 });
    expect(leaseIsLive({ ...held, released: true }, 10)).toBe(false);
  });
  it('renews only for its holder at its generation while live', () => {
    expect(renewedLease(held, 'd-0', 3, 1000, 4500)).toMatchObject({ expires_at_ms: 5500, generation: 3 });
    expect(renewedLease(held, 'd-1', 3, 1000, 4500)).toBeNull();
    expect(renewedLease(held, 'd-0', 2, 1000, 4500)).toBeNull();
    expect(renewedLease(held, 'd-0', 3, 1000, 5000)).toBeNull();
  });
});
