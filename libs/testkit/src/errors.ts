export class NatsServerNotFoundError extends Error {
  override name = 'NatsServerNotFoundError';
  constructor(searched: string[]) {
    super(
      `nats-server binary not found (looked at NATS_SERVER_BIN, PATH and ${searched.join(', ')}). ` +
        'Install nats-server 2.9 or newer (https://github.com/nats-io/nats-server/releases) ' +
        'or set NATS_SERVER_BIN to its path.',
    );
  }
}

export class NatsServerStartError extends Error {
  override name = 'NatsServerStartError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
