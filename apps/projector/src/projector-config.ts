import { DEFAULT_NATS_URL, readHome, readPrefix } from '@postern/service';
import { ProjectorConfigError } from './errors.js';

export interface ProjectorConfig {
  natsUrl: string;
  prefix: string;
  home: string;
  dbUrl?: string;
  httpPort: number;
  /** When set, every route but /healthz needs `Authorization: Bearer <token>` and the API binds to all interfaces. */
  apiToken?: string;
  /** Overrides the bind address chosen from `apiToken` (tests). */
  httpHost?: string;
}

export const DEFAULT_HTTP_PORT = 8640;

/** Reads the projector's settings from the environment (CONTRACT.md section 1). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ProjectorConfig {
  const portText = env['POSTERN_HTTP_PORT']?.trim();
  const httpPort = portText ? Number(portText) : DEFAULT_HTTP_PORT;
  if (!Number.isInteger(httpPort) || httpPort < 0 || httpPort > 65_535) {
    throw new ProjectorConfigError('POSTERN_HTTP_PORT must be a port number');
  }
  const token = env['POSTERN_API_TOKEN'];
  return {
    natsUrl: env['NATS_URL']?.trim() || DEFAULT_NATS_URL,
    prefix: readPrefix(env),
    home: readHome(env),
    dbUrl: env['POSTERN_DB_URL']?.trim() || undefined,
    httpPort,
    apiToken: token ? token : undefined,
  };
}

/** Loopback only unless a token protects the API. */
export function bindHost(config: ProjectorConfig): string {
  return config.httpHost ?? (config.apiToken ? '0.0.0.0' : '127.0.0.1');
}
