// The adapter's flags, concatenated into `serve`'s flag list by the coordinator. Names follow the
// k8s.io/apiserver / custom-metrics-apiserver flags the manifests of other adapters already use.
import type { FlagSpec } from '../config/flags.ts';

export const ADAPTER_FLAGS = [
  { name: 'secure-port', type: 'int', default: 6443, min: 0, max: 65535, help: 'HTTPS port of the custom/external metrics API (0 picks a free port)' },
  { name: 'bind-address', type: 'string', default: '0.0.0.0', help: 'address the metrics API listens on' },
  { name: 'tls-cert-file', type: 'string', default: undefined, help: 'serving certificate (PEM, leaf first); unset: use or generate apiserver.crt in --cert-dir' },
  { name: 'tls-private-key-file', type: 'string', default: undefined, help: 'serving key (PEM) for --tls-cert-file' },
  { name: 'cert-dir', type: 'string', default: 'apiserver.local.config/certificates', help: 'where a self-signed serving pair is kept when no --tls-cert-file is given' },
  { name: 'adapter-service-name', type: 'string', default: undefined, help: 'Service name put in the generated certificate\'s SANs (with --adapter-service-namespace)' },
  { name: 'adapter-service-namespace', type: 'string', default: undefined, help: 'Service namespace for the generated certificate\'s SANs' },
  { name: 'prediction-fallback', type: 'enum', values: ['observed', 'unavailable', 'error'], default: 'observed', help: 'crane_pod_cpu_usage when the forecast is missing or stale: serve the pods\' observed usage, or answer 503 (unavailable; "error" is its old name), which makes the HPA scale on its other metrics and hold scale-down. Neither is Crane\'s way: Crane leaves the predicted metric out of the HPA until the forecast is ready' },
  { name: 'remote-adapter', type: 'string', default: undefined, help: 'https URL of an adapter (e.g. prometheus-adapter) that answers metrics we do not own; Crane\'s form "true" builds it from --remote-adapter-service-*' },
  { name: 'remote-adapter-service-namespace', type: 'string', default: undefined, help: 'Crane alias: with --remote-adapter=true, the namespace of the remote adapter\'s Service' },
  { name: 'remote-adapter-service-name', type: 'string', default: undefined, help: 'Crane alias: with --remote-adapter=true, the name of the remote adapter\'s Service' },
  { name: 'remote-adapter-service-port', type: 'int', default: 6443, min: 1, max: 65535, help: 'Crane alias: with --remote-adapter=true, the port of the remote adapter\'s Service' },
  { name: 'remote-adapter-token-file', type: 'string', default: '/var/run/secrets/kubernetes.io/serviceaccount/token', help: 'bearer token sent to --remote-adapter (if the file exists)' },
  { name: 'remote-adapter-ca-file', type: 'string', default: undefined, help: 'PEM CA bundle --remote-adapter\'s serving certificate must chain to (unset: the system roots)' },
  { name: 'remote-adapter-insecure', type: 'bool', default: false, help: 'do not verify --remote-adapter\'s certificate (Crane\'s behaviour; logs a warning): prefer --remote-adapter-ca-file' },
  { name: 'requestheader-client-ca-file', type: 'string', default: undefined, help: 'front-proxy CA bundle; unset: read kube-system/extension-apiserver-authentication' },
  { name: 'requestheader-allowed-names', type: 'string', default: undefined, help: 'comma-separated front-proxy client CNs (with --requestheader-client-ca-file; empty: any)' },
  { name: 'requestheader-username-headers', type: 'string', default: 'X-Remote-User', help: 'comma-separated user headers (with --requestheader-client-ca-file)' },
  { name: 'requestheader-group-headers', type: 'string', default: 'X-Remote-Group', help: 'comma-separated group headers (with --requestheader-client-ca-file)' },
  { name: 'requestheader-extra-headers-prefix', type: 'string', default: 'X-Remote-Extra-', help: 'comma-separated extra-header prefixes (with --requestheader-client-ca-file)' },
  { name: 'client-ca-file', type: 'string', default: undefined, help: 'CA bundle for plain client-certificate users (optional)' },
  { name: 'max-connections', type: 'int', default: 1024, min: 1, max: 1_000_000, help: 'concurrent metrics API connections whose client certificate verifies (the aggregator\'s front-proxy, --client-ca-file users); one more is closed after its handshake' },
  { name: 'max-untrusted-connections', type: 'int', default: 128, min: 1, max: 1_000_000, help: 'sockets on the metrics API without a verified client certificate (handshaking, or without one); a new one past this closes the oldest, so they never take the aggregator\'s room' },
  { name: 'authorization-cache-ttl', type: 'duration', default: '10s', help: 'how long SubjectAccessReview answers are cached' },
  { name: 'cron-semantics', type: 'enum', values: ['v0.7', 'head'], default: 'v0.7', help: 'cron metric rules of Crane v0.2–v0.7 (no active cron: minReplicas beside other metrics, else current replicas; unset timezone = UTC) or of Crane HEAD (no active cron: minReplicas; unset timezone = the local zone)' },
  { name: 'cron-local-timezone', type: 'string', default: undefined, help: 'IANA zone a cron\'s "timezone: Local" means (default: the process time zone)' },
] as const satisfies readonly FlagSpec[];
