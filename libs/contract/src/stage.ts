/** The stage where an attempt stopped (CONTRACT.md section 4, `evidence.stage`). */
export const Stage = {
  validation: 'validation',
  credential: 'credential',
  dns: 'dns',
  tcp_connect: 'tcp_connect',
  proxy_connect: 'proxy_connect',
  tls_handshake: 'tls_handshake',
  ssh_handshake: 'ssh_handshake',
  ssh_host_key: 'ssh_host_key',
  ssh_auth: 'ssh_auth',
  ssh_channel_open: 'ssh_channel_open',
  request_write: 'request_write',
  response_headers: 'response_headers',
  response_body: 'response_body',
  exec_request: 'exec_request',
  exec_running: 'exec_running',
  result_store: 'result_store',
  result_delivery: 'result_delivery',
} as const;
export type Stage = (typeof Stage)[keyof typeof Stage];
export const STAGES: readonly Stage[] = Object.values(Stage);
