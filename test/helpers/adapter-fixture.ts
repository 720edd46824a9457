// A real metrics adapter on loopback HTTPS with real certificates: a serving CA + leaf, the aggregator's
// front-proxy CA with its client certificate (CN front-proxy-client), a front-proxy-CA cert with a CN that
// is not an allowed name, and a look-alike front-proxy-client cert from an untrusted CA.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:https';
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { issueCertificate, type KeyedCert } from '../../src/adapter/cert-factory.ts';
import { startMetricsAdapter, type MetricsAdapterHandle, type MetricsAdapterOptions } from '../../src/adapter/server.ts';
import type { Authorizer, AuthzAttributes, Decision } from '../../src/adapter/authz.ts';
import type { UserInfo } from '../../src/adapter/authn.ts';
import type { PodLike } from '../../src/api/pod.ts';
import type { AdapterSources, PredictionFallbackEvent } from '../../src/adapter/providers/sources.ts';
import type { LabelSelector } from '../../src/selectors/label-selector.ts';
import type { CrossVersionObjectReference } from '../../src/api/meta.ts';
import type { EffectiveHorizontalPodAutoscaler } from '../../src/api/ehpa.ts';
import type { TimeSeriesPrediction } from '../../src/api/prediction.ts';

export interface TestPki {
  servingCa: KeyedCert;
  serving: KeyedCert;
  frontProxyCa: KeyedCert;
  frontProxyClient: KeyedCert;
  notAllowedClient: KeyedCert;
  untrustedClient: KeyedCert;
}

let pki: TestPki | undefined;

export function testPki(): TestPki {
  if (pki) return pki;
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = new Date(Date.now() + 86_400_000);
  const servingCa = issueCertificate({ commonName: 'test-serving-ca', usage: 'ca', notBefore, notAfter });
  const serving = issueCertificate({ commonName: 'adapter', usage: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], notBefore, notAfter }, servingCa);
  const frontProxyCa = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore, notAfter });
  const frontProxyClient = issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore, notAfter }, frontProxyCa);
  const notAllowedClient = issueCertificate({ commonName: 'someone-else', usage: 'client', notBefore, notAfter }, frontProxyCa);
  const rogueCa = issueCertificate({ commonName: 'front-proxy-ca', usage: 'ca', notBefore, notAfter });
  const untrustedClient = issueCertificate({ commonName: 'front-proxy-client', usage: 'client', notBefore, notAfter }, rogueCa);
  pki = { servingCa, serving, frontProxyCa, frontProxyClient, notAllowedClient, untrustedClient };
  return pki;
}

export class MapSources implements AdapterSources {
  ehpas: EffectiveHorizontalPodAutoscaler[] = [];
  tsps: TimeSeriesPrediction[] = [];
  pods: (PodLike & { metadata: { name: string; namespace: string } })[] = [];
  scale = new Map<string, number>();
  observed = new Map<string, number>();

  getEhpa(ns: string, name: string) {
    return this.ehpas.find((e) => e.metadata.namespace === ns && e.metadata.name === name);
  }
  listEhpas(ns?: string) {
    return this.ehpas.filter((e) => ns === undefined || e.metadata.namespace === ns);
  }
  listTsps(ns?: string) {
    return this.tsps.filter((t) => ns === undefined || t.metadata.namespace === ns);
  }
  listPods(ns: string, selector: LabelSelector) {
    return this.pods.filter((p) => p.metadata.namespace === ns && selector.matches(p.metadata.labels));
  }
  getScaleReplicas(ns: string, ref: CrossVersionObjectReference) {
    return this.scale.get(`${ns}/${ref.kind}/${ref.name}`);
  }
  observedPodCpuMillis(ns: string, names: readonly string[]) {
    const out = new Map<string, number>();
    for (const n of names) {
      const v = this.observed.get(`${ns}/${n}`);
      if (v !== undefined) out.set(n, v);
    }
    return out;
  }
}

/** Allows users by name (or `*`), records every question. */
export class RecordingAuthorizer implements Authorizer {
  calls: { user: UserInfo; attrs: AuthzAttributes }[] = [];
  allowedUsers = new Set<string>();
  failing = false;
  async authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> {
    this.calls.push({ user, attrs });
    if (this.failing) throw new Error('SubjectAccessReview failed: connection refused');
    return { allowed: this.allowedUsers.has(user.name) || this.allowedUsers.has('*') };
  }
}

export interface Running {
  handle: MetricsAdapterHandle;
  sources: MapSources;
  authorizer: RecordingAuthorizer;
  registry: Registry;
  fallbacks: PredictionFallbackEvent[];
  clock: { now: number };
  get(path: string, opts?: RequestOpts): Promise<Reply>;
  close(): Promise<void>;
}

export interface RequestOpts {
  cert?: 'front-proxy' | 'not-allowed' | 'untrusted' | 'none';
  headers?: [string, string][];
  method?: string;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function startTestAdapter(overrides: Partial<MetricsAdapterOptions> = {}): Promise<Running> {
  const p = testPki();
  const dir = await mkdtemp(join(tmpdir(), 'adapter-test-'));
  await writeFile(join(dir, 'tls.crt'), p.serving.certPem + p.servingCa.certPem);
  await writeFile(join(dir, 'tls.key'), p.serving.keyPem);
  const sources = new MapSources();
  const authorizer = new RecordingAuthorizer();
  const registry = new Registry();
  const fallbacks: PredictionFallbackEvent[] = [];
  const clock = { now: Date.parse('2026-01-05T10:00:00Z') };
  const handle = await startMetricsAdapter(
    {
      securePort: 0,
      bindAddress: '127.0.0.1',
      tlsCertFile: join(dir, 'tls.crt'),
      tlsKeyFile: join(dir, 'tls.key'),
      certDir: dir,
      predictionFallback: 'observed',
      requestHeader: {
        caPem: p.frontProxyCa.certPem,
        allowedNames: ['front-proxy-client'],
        usernameHeaders: ['X-Remote-User'],
        uidHeaders: [],
        groupHeaders: ['X-Remote-Group'],
        extraHeaderPrefixes: ['X-Remote-Extra-'],
      },
      authorizer,
      authzCacheTtlMs: 0,
      now: () => clock.now,
      localZone: 'UTC',
      onPredictionFallback: (e) => fallbacks.push(e),
      exposePrometheus: true,
      ...overrides,
    },
    sources,
    registry,
    pino({ level: 'silent' }),
  );
  const agents = new Map<string, Agent>();
  const agentFor = (cert: NonNullable<RequestOpts['cert']>) => {
    let a = agents.get(cert);
    if (!a) {
      const kc = cert === 'front-proxy' ? p.frontProxyClient : cert === 'not-allowed' ? p.notAllowedClient : cert === 'untrusted' ? p.untrustedClient : undefined;
      a = new Agent({ keepAlive: true, ca: p.servingCa.certPem, ...(kc ? { cert: kc.certPem, key: kc.keyPem } : {}) });
      agents.set(cert, a);
    }
    return a;
  };
  const get = (path: string, opts: RequestOpts = {}) =>
    new Promise<Reply>((resolve, reject) => {
      const req = request(
        { host: 'localhost', port: handle.port, path, method: opts.method ?? 'GET', agent: agentFor(opts.cert ?? 'front-proxy'), headers: [["Host", `localhost:${handle.port}`], ...(opts.headers ?? [])].flat() as unknown as Record<string, string> },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  return {
    handle, sources, authorizer, registry, fallbacks, clock, get,
    async close() {
      for (const a of agents.values()) a.destroy();
      await handle.close();
    },
  };
}

/** Headers the aggregator adds: user and repeated groups. */
export function asUser(name: string, ...groups: string[]): [string, string][] {
  return [['X-Remote-User', name], ...groups.map((g): [string, string] => ['X-Remote-Group', g])];
}
