// The one door to the Kubernetes API for everything but watches: JSON over HTTPS with the kubeconfig's
// credentials. It counts requests by verb so loops can report "API requests per reconcile", and by verb and
// resource so an operator can tell which kind a steady stream of writes is for.
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { TokenBucket } from './token-bucket.ts';

export class KubeApiError extends Error {
  override name = 'KubeApiError';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
  get notFound(): boolean {
    return this.status === 404;
  }
  get conflict(): boolean {
    return this.status === 409 && this.reason !== 'AlreadyExists';
  }
  get alreadyExists(): boolean {
    return this.status === 409 && this.reason === 'AlreadyExists';
  }
}

export type PatchType = 'merge' | 'json' | 'strategic';

/** What a reconciler needs of the API client to write objects: the seam unit tests fill with an in-memory
 *  fake (the real client is exercised against kube-apiserver in the e2e suites). */
export interface ObjectWriter {
  get<T>(path: string): Promise<T>;
  create<T>(path: string, body: unknown): Promise<T>;
  replace<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown, patchType?: PatchType): Promise<T>;
}
const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  patchType?: PatchType;
  timeoutMs?: number;
  /** Aborts the request: refused before it is sent, or its socket destroyed while in flight (leader election
   *  bounds each Lease attempt and fences a lost term's writes with it). */
  signal?: AbortSignal;
}

/** Waits `ms`, or less when `signal` aborts (the request then sees the abort). */
function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The resource (and subresource, '' if none) a request path names, as kube-apiserver's own
 *  apiserver_request_total labels them: `/api/v1/namespaces/a/pods/b/status` is pods + status,
 *  `/apis/autoscaling.crane.io/v1alpha1/namespaces/a/effectivehorizontalpodautoscalers` is
 *  effectivehorizontalpodautoscalers.autoscaling.crane.io, `/api/v1/namespaces/a` is namespaces. Core-group
 *  resources carry no group suffix. Anything else (discovery, /version) is 'other'. */
export function apiPathResource(path: string): { resource: string; subresource: string } {
  const parts = path.split('?', 1)[0]!.split('/').filter((p) => p !== '');
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) [group, rest] = ['', parts.slice(2)];
  else if (parts[0] === 'apis' && parts.length >= 3) [group, rest] = [parts[1]!, parts.slice(3)];
  else return { resource: 'other', subresource: '' };
  // namespaces/<ns>/<resource>/... is namespaced; namespaces, namespaces/<name> and the Namespace's own
  // subresources (namespaces/<name>/status, /finalize) are the Namespace itself.
  const namespaceSub = group === '' && rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
  if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSub) rest = rest.slice(2);
  if (rest.length === 0) return { resource: 'other', subresource: '' };
  const resource = group === '' ? rest[0]! : `${rest[0]}.${group}`;
  return { resource, subresource: rest[2] ?? '' };
}

/** Loads the kubeconfig the way kubectl does: explicit file, else in-cluster, else $KUBECONFIG / ~/.kube/config. */
export function loadKubeConfig(path?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster()) throw new Error('no Kubernetes cluster configured (use --kubeconfig, $KUBECONFIG or run in a pod)');
  return kc;
}

export class KubeApiClient {
  /** Requests sent, by HTTP method. */
  readonly requestCounts = new Map<string, number>();
  /** Requests sent, by `${method} ${resource} ${subresource}` (apiPathResource). Bounded by the resources this
   *  process addresses: its own kinds, and the scalable kinds EHPAs name, which discovery limits to those
   *  the cluster serves. */
  readonly requestCountsByResource = new Map<string, number>();
  /** Milliseconds requests spent waiting for the client-side rate limit. */
  throttledMs = 0;
  private readonly server: URL;
  private agent: https.Agent | undefined;
  private readonly limiter: TokenBucket | undefined;

  constructor(
    readonly kubeConfig: KubeConfig,
    /** Shows up as the field manager in managedFields and in audit logs. */
    readonly userAgent = 'ehpa-adapter',
    /** Client-side rate limit (--kube-api-qps/--kube-api-burst); qps 0 or absent: none. Watches are not limited. */
    rateLimit?: { qps: number; burst: number },
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
    if (rateLimit && rateLimit.qps > 0) this.limiter = new TokenBucket(rateLimit.qps, rateLimit.burst, Date.now);
  }

  totalRequests(): number {
    let n = 0;
    for (const v of this.requestCounts.values()) n += v;
    return n;
  }

  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = new URL(this.server.pathname.replace(/\/$/, '') + path, this.server);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    this.requestCounts.set(method, (this.requestCounts.get(method) ?? 0) + 1);
    const { resource, subresource } = apiPathResource(path);
    const key = `${method} ${resource} ${subresource}`;
    this.requestCountsByResource.set(key, (this.requestCountsByResource.get(key) ?? 0) + 1);
    const wait = this.limiter?.reserve() ?? 0;
    if (wait > 0) {
      this.throttledMs += wait;
      await abortableDelay(wait, opts.signal);
    }
    const options: https.RequestOptions = { method, headers: { Accept: 'application/json', 'User-Agent': this.userAgent } };
    // Credentials are applied per request (tokens rotate), but connections are reused: client-node hands
    // out a fresh agent each time, which would cost a TLS handshake per request.
    await this.kubeConfig.applyToHTTPSOptions(options);
    if (url.protocol === 'https:') {
      this.agent ??= new https.Agent({
        ca: options.ca,
        cert: options.cert,
        key: options.key,
        pfx: options.pfx,
        passphrase: options.passphrase,
        rejectUnauthorized: options.rejectUnauthorized ?? (options.agent as https.Agent | undefined)?.options?.rejectUnauthorized,
        servername: options.servername ?? (options.agent as https.Agent | undefined)?.options?.servername,
        keepAlive: true,
        maxSockets: 32,
      });
      options.agent = this.agent;
    }
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    if (body !== undefined) {
      options.headers = {
        ...options.headers,
        'Content-Type': method === 'PATCH' ? PATCH_CONTENT_TYPE[opts.patchType ?? 'merge'] : 'application/json',
        'Content-Length': Buffer.byteLength(body),
      };
    }
    const mod = url.protocol === 'http:' ? http : https;
    // Checked after every await above, right before bytes go out: an aborted request never reaches the server.
    opts.signal?.throwIfAborted();
    if (opts.signal) options.signal = opts.signal;
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = mod.request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.setTimeout(opts.timeoutMs ?? 30_000, () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (status < 200 || status >= 300) {
      const st = (parsed && typeof parsed === 'object' ? parsed : {}) as { reason?: string; message?: string };
      throw new KubeApiError(status, st.reason ?? '', `${method} ${path}: ${status} ${st.message ?? text.slice(0, 200)}`);
    }
    return parsed as T;
  }

  /** The same cluster and identity with its own connections and no client-side rate limit: for requests that
   *  must never queue behind a backlog of others (the leader's Lease renewals). Its requests are not in
   *  this client's requestCounts. */
  withoutLimiter(): KubeApiClient {
    return new KubeApiClient(this.kubeConfig, this.userAgent);
  }

  get<T>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('GET', path, { query });
  }
  create<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, { body });
  }
  replace<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }
  patch<T>(path: string, body: unknown, patchType: PatchType = 'merge'): Promise<T> {
    return this.request<T>('PATCH', path, { body, patchType });
  }
  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }
}

/** An apiVersion (or object name) that cannot name anything on the API server; refused before any request. */
export class InvalidApiPathError extends Error {
  override name = 'InvalidApiPathError';
}

// `<group>/<version>` or `<version>`: the group a DNS-1123 subdomain (253 characters at most), the version a
// DNS-1035 label (63 at most), which is what the apiserver accepts for API group and CRD version names
// (k8s.io/apiextensions-apiserver v0.34 pkg/apis/apiextensions/validation/validation.go). Neither part can
// hold a '/', '.'-only segment or '%', so the string cannot climb out of /apis/<group>/<version>.
const API_GROUP = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const API_VERSION = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Throws InvalidApiPathError unless `apiVersion` is `<group>/<version>` or `<version>` (see above). */
export function validateApiVersion(apiVersion: string): void {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? undefined : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const groupOk = group === undefined || (group.length <= 253 && API_GROUP.test(group));
  if (!groupOk || version.length > 63 || !API_VERSION.test(version)) {
    throw new InvalidApiPathError(`invalid apiVersion ${JSON.stringify(apiVersion.slice(0, 300))}: want <group>/<version> or <version>, e.g. apps/v1`);
  }
}

/** `/apis/<group>/<version>` or `/api/v1` for the core group; throws InvalidApiPathError on a malformed apiVersion. */
export function groupVersionPath(apiVersion: string): string {
  validateApiVersion(apiVersion);
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** Path of a namespaced collection or object. */
export function resourcePath(apiVersion: string, plural: string, namespace?: string, name?: string, sub?: string): string {
  let p = groupVersionPath(apiVersion);
  if (namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${plural}`;
  // encodeURIComponent leaves dots alone, and URL parsing would resolve a `..` name against the path.
  if (name === '.' || name === '..') throw new InvalidApiPathError(`invalid object name ${JSON.stringify(name)}`);
  if (name) p += `/${encodeURIComponent(name)}`;
  if (sub) p += `/${sub}`;
  return p;
}
