/** The text printed by `postern --help` and after a usage error. */
export const USAGE = `usage: postern [--json] [--timeout <ms>] <command>

commands:
  up                              run the broker stack in the foreground
  submit [file|-] [--no-wait] [--wait-ms <ms>]
                                  submit an ActionCommand (JSON) from a file or stdin,
                                  wait until it is resolved, print its RecordView
  get <invocation_id>             print an invocation's RecordView
  cancel <invocation_id>          cancel an invocation, print its RecordView
  fetch <invocation_id>           write the result body (or SSH stdout) to stdout
  ack <invocation_id>             acknowledge delivery of the result
  replay                          rebuild the read model from the journal
  vault init|unlock|lock|status   manage the vault; init and unlock read the
                                  passphrase from stdin (first line), or ask
                                  for it without echo on a terminal
  credential put <id> --type T --scope S [--scope S ...] [--user U]
                 [--header-name H] [--param Q] [--approval none|per_call]
                                  store a credential; the secret is all of stdin
                                  less one trailing newline (ssh_key: the key
                                  file exactly), sealed before it is sent.
                                  T: http_bearer, http_basic (--user), http_header
                                  (--header-name), http_query (--param), ssh_key,
                                  ssh_password
  credential list                 list credentials (metadata only)
  credential revoke <id>          revoke a credential

options:
  --json          print only the broker's JSON reply on stdout
  --timeout <ms>  how long to wait for each broker reply (default 10000)

environment:
  NATS_URL        NATS server(s), comma-separated (default nats://127.0.0.1:4222)
  POSTERN_PREFIX  subject prefix (default postern)

exit status: 0 committed without error, 1 the broker said an error,
2 bad usage or broker unreachable.
`;
