import { fileURLToPath } from 'node:url';

/** Paths of the committed test-only TLS fixtures (`libs/testkit/certs`). */
export interface TestCertificates {
  /** The test CA that signed `server` and `wrongHost`. */
  ca: string;
  /** `localhost`, `127.0.0.1` and `::1`. */
  server: { cert: string; key: string };
  /** Signed by the test CA for `wrong-host.invalid` only. */
  wrongHost: { cert: string; key: string };
  /** `localhost` / `127.0.0.1`, signed by itself: no CA vouches for it. */
  selfSigned: { cert: string; key: string };
}

// src/ and dist/ both sit one level below the package root.
const certDir = new URL('../certs/', import.meta.url);

function pathOf(name: string): string {
  return fileURLToPath(new URL(name, certDir));
}

export function testCertificates(): TestCertificates {
  return {
    ca: pathOf('ca.pem'),
    server: { cert: pathOf('server.pem'), key: pathOf('server-key.pem') },
    wrongHost: { cert: pathOf('wrong-host.pem'), key: pathOf('wrong-host-key.pem') },
    selfSigned: { cert: pathOf('self-signed.pem'), key: pathOf('self-signed-key.pem') },
  };
}
