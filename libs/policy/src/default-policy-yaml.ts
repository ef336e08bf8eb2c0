/**
 * The policy file written on first start. Only loopback targets are active,
 * so a fresh broker can reach local test services and nothing else; every
 * other key is shown, commented out, with what it does.
 */
export const DEFAULT_POLICY_YAML = `# Postern policy file.
#
# Postern refuses any action whose target matches no entry under \`targets\`
# (TARGET_NOT_ALLOWED). Entries are checked in file order; the first whose
# \`match\` fits the target governs the action. Unknown keys are errors, and a
# broken edit is refused as a whole: the broker keeps the last good policy.
#
# A full target entry, with what each key means (values shown are examples
# unless marked "default"):
#
# targets:
#   - match: "https://api.example.com"   # an origin: scheme, exact host, optional port.
#                                        # No path, no user, no wildcard host; the port may
#                                        # be "*" (any port). Without a port: 80, 443, ssh 22.
#     retry_safe_methods: [GET, HEAD]    # methods this remote really treats as idempotent,
#                                        # so an unknown outcome may be retried (default: none)
#     callers_may_assert_idempotent: false   # honour "idempotent": true from callers (default false)
#     redirects: none                    # none | same_origin (default none)
#     proxy: "http://proxy.internal:3128"    # forward proxy for this target (no credentials here)
#     idempotency:                       # the remote's own dedupe contract; declare it only
#                                        # once you have verified the remote honours it
#       header: Idempotency-Key          # request header that carries the key (required)
#       scope: payments.create           # namespace of keys at Postern (required)
#       retention_s: 86400               # how long the remote remembers a key (required)
#       margin_s: 3600                   # stop reusing a key this long before then (default 0)
#       in_use_status: 409               # "key in use by a running request" (default 409)
#       mismatch_status: 422             # "key reused with another request" (default 422)
#     reconcile:                         # (later) how to ask the remote what happened
#       method: GET
#       url: "https://api.example.com/v1/charges?idempotency_key={idempotency_key}"
#     timeouts_ms: {connect: 5000, response_headers: 30000, body: 30000}   # defaults
#     limits:                            # defaults shown
#       request_body_bytes: 262144       # largest request body accepted (PAYLOAD_LIMIT)
#       response_body_bytes: 8388608     # largest body stored (RESPONSE_TRUNCATED above it)
#       response_read_bytes: 134217728   # read this far to verify a too-large body's framing
#     response_headers: [x-ratelimit-remaining]   # stored besides the built-in allow-list
#     ca_file: ./ca.pem                  # extra trust roots, relative to this file
#
#   - match: "ssh://10.0.0.5:22"
#     host_keys: ["SHA256:..."]          # pinned host key fingerprints (ssh-keygen -lf);
#                                        # any other key is SSH_HOST_KEY_REJECTED
#     idempotent_commands: ["^uptime$"]  # commands (regular expressions) safe to retry
#     reconcile: {command: "deploy-status {invocation_id}"}   # (later)
#     limits: {output_bytes: 8388608}    # largest stdout / stderr stored (default)

targets:
  # Local services only. Add your own entries above or below these.
  - match: "http://127.0.0.1:*"
    retry_safe_methods: [GET, HEAD]
  - match: "http://localhost:*"
    retry_safe_methods: [GET, HEAD]

dispatch:
  connect_attempts: 3      # connection tries inside one attempt, before dispatch
  budget: 5                # dispatches per invocation, kept in the journal
  auto_retry: false        # true: the broker follows decide() itself after dispatch
  lease_ms: 30000          # renewed while an attempt is in flight; a crashed
                           # attempt is recovered once it expires

results:
  retention_s: 604800      # how long results stay fetchable (7 days)
`;
