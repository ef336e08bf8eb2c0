import { describe, expect, it } from 'vitest';
import { REDACTED, summarizeCommand } from './command-summary.js';

describe('summarizeCommand', () => {
  it('replaces the body by its digest and redacts credential headers', () => {
    const summary = summarizeCommand(
      {
        client_request_id: 'r',
        action: 'http.request',
        credential: 'c',
        http: {
          method: 'POST',
          url: 'https://a.example/',
          headers: { Authorization: 'Bearer sk_live_canary', Cookie: 's=canary', 'content-type': 'application/json' },
          body: { json: { secret: 'canary-body' } },
        },
      },
      'sha256:b',
    );
    expect(summary.http).toEqual({
      method: 'POST',
      url: 'https://a.example/',
      headers: { Authorization: REDACTED, Cookie: REDACTED, 'content-type': 'application/json' },
      body: { digest: 'sha256:b', bytes: 24, encoding: 'json' },
    });
    expect(JSON.stringify(summary)).not.toContain('canary');
  });

  it('replaces ssh stdin by its digest', () => {
    const summary = summarizeCommand(
      { client_request_id: 'r', action: 'ssh.exec', credential: 'c', ssh: { host: 'h', port: 22, command: 'cat', stdin: { base64: 'aGk=' } } },
      'sha256:s',
    );
    expect(summary.ssh).toEqual({ host: 'h', port: 22, command: 'cat', stdin: { digest: 'sha256:s', bytes: 2, encoding: 'base64' } });
  });
});
