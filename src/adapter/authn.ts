// Who is asking (docs/metrics-api.md §5.3). The aggregator proves itself with its front-proxy client
// certificate, which must chain to the request-header CA specifically (never just "some CA the TLS layer
// trusts") and, if allowed names are configured, carry one of them as CN; only then are the X-Remote-*
// identity headers believed. Identity headers are stripped from every request whatever happens. A client
// certificate chaining to --client-ca-file (optional) authenticates as its CN/O. No certificate: anonymous.
// A certificate that proves nothing: 401.
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { connectionOf, type ApiRequest } from './http-reply.ts';

export interface RequestHeaderConfig {
  /** PEM bundle of the front-proxy CA (requestheader-client-ca-file). */
  caPem: string;
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
  /** Optional PEM bundle for plain x509 client-certificate users (client-ca-file). */
  clientCaPem?: string;
}

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

export type AuthnResult = { ok: true; user: UserInfo } | { ok: false; reason: string };

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} };
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

export function parsePemBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

function validAt(c: X509Certificate, nowMs: number): boolean {
  return Date.parse(c.validFrom) <= nowMs && nowMs <= Date.parse(c.validTo);
}

/** Values of one subject attribute in DER order (Node's legacy object keeps every repeat, unescaped). */
function subjectValues(c: X509Certificate, attr: 'CN' | 'O'): string[] {
  const v = (c.toLegacyObject().subject as unknown as Record<string, string | string[] | undefined>)[attr];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/**
 * The subject's CN as Go reads it: golang/go src/crypto/x509/pkix/pkix.go (Go 1.24, the toolchain of
 * k8s.io/apiserver v0.34) `(*Name).FillFromRDNSequence` walks every RDN
 * and every attribute in it and assigns CommonName each time, so with several CN attributes the LAST one
 * is the CommonName k8s.io/apiserver checks against requestheader-allowed-names and uses as the user name.
 * Taking the first would let a certificate "CN=front-proxy-client, CN=other" pass here and fail there.
 */
export function commonName(c: X509Certificate): string | undefined {
  return subjectValues(c, 'CN').at(-1);
}

function organizations(c: X509Certificate): string[] {
  return subjectValues(c, 'O');
}

/**
 * Verifies `leaf` up to a root in `roots`, through the intermediates the client sent. Returns when the
 * verified path stops being valid (the earliest notAfter on it), or undefined when it does not verify.
 */
export function verifiedUntil(leaf: X509Certificate, intermediates: X509Certificate[], roots: X509Certificate[], nowMs: number): number | undefined {
  if (!validAt(leaf, nowMs)) return undefined;
  const eku = leaf.keyUsage;
  if (eku && eku.length > 0 && !eku.includes(CLIENT_AUTH_OID)) return undefined;
  let cur = leaf;
  let until = Date.parse(leaf.validTo);
  for (let depth = 0; depth < 8; depth++) {
    for (const root of roots) {
      if (root.ca && validAt(root, nowMs) && cur.checkIssued(root) && cur.verify(root.publicKey)) return Math.min(until, Date.parse(root.validTo));
    }
    const next = intermediates.find((i) => i !== cur && i.ca && validAt(i, nowMs) && cur.checkIssued(i) && cur.verify(i.publicKey));
    if (!next) return undefined;
    until = Math.min(until, Date.parse(next.validTo));
    cur = next;
  }
  return undefined;
}

/** Verifies `leaf` up to a root in `roots`, through the intermediates the client sent. */
export function chainsTo(leaf: X509Certificate, intermediates: X509Certificate[], roots: X509Certificate[], nowMs: number): boolean {
  return verifiedUntil(leaf, intermediates, roots, nowMs) !== undefined;
}

/** Header values in arrival order, unmerged (Node joins repeated headers with ", "; docs/metrics-api.md §7 G18). */
function headerValues(req: ApiRequest, name: string): string[] {
  const out: string[] = [];
  const lower = name.toLowerCase();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === lower) out.push(raw[i + 1] as string);
  return out;
}

type CertVerdict = { kind: 'none' } | { kind: 'front-proxy' } | { kind: 'client'; user: UserInfo } | { kind: 'untrusted'; reason: string };

/** One parsed, immutable trust configuration; a reload builds a new one and swaps the reference. */
interface Trust {
  readonly cfg: RequestHeaderConfig;
  readonly roots: X509Certificate[];
  readonly clientRoots: X509Certificate[];
  readonly identityHeaders: string[];
  readonly extraPrefixes: string[];
  readonly generation: number;
}

function caBundle(pem: string, what: string): X509Certificate[] {
  let certs: X509Certificate[];
  try {
    certs = parsePemBundle(pem);
  } catch (e) {
    throw new Error(`${what}: unparseable certificate (${(e as Error).message})`);
  }
  const cas = certs.filter((c) => c.ca);
  if (cas.length === 0) throw new Error(`${what}: no CA certificate in the bundle`);
  return cas;
}

/** Parses a config; throws (leaving nothing half-applied) when a bundle holds no usable CA certificate. */
function compileTrust(cfg: RequestHeaderConfig, generation: number): Trust {
  return {
    cfg,
    roots: caBundle(cfg.caPem, 'requestheader-client-ca-file'),
    clientRoots: cfg.clientCaPem ? caBundle(cfg.clientCaPem, 'client-ca-file') : [],
    identityHeaders: [...cfg.usernameHeaders, ...cfg.uidHeaders, ...cfg.groupHeaders].map((h) => h.toLowerCase()),
    extraPrefixes: cfg.extraHeaderPrefixes.map((p) => p.toLowerCase()),
    generation,
  };
}

/** A socket's verdict, good while the trust generation is unchanged and the verified chain has not expired. */
interface CachedVerdict {
  verdict: CertVerdict;
  generation: number;
  recheckAtMs: number;
}

export class RequestHeaderAuthenticator {
  private trust: Trust;
  // The peer certificate is fixed for a TLS connection: verify it once per socket, and again only when the
  // trust was reloaded (a rotated-out CA must stop working on connections already open) or the chain expired.
  private readonly verdicts = new WeakMap<object, CachedVerdict>();

  constructor(
    cfg: RequestHeaderConfig,
    private readonly now: () => number,
  ) {
    this.trust = compileTrust(cfg, 0);
  }

  /** The configuration in force (what a reload compares against). */
  get config(): RequestHeaderConfig {
    return this.trust.cfg;
  }

  /** Bumped by every successful reload. */
  get generation(): number {
    return this.trust.generation;
  }

  /**
   * Swaps in a new configuration atomically: requests already past authentication keep the snapshot they
   * read, later ones see only the new one. Throws, keeping the old trust, when the new one does not parse.
   */
  reload(cfg: RequestHeaderConfig): void {
    this.trust = compileTrust(cfg, this.trust.generation + 1);
  }

  private verdictFor(req: ApiRequest, trust: Trust): CertVerdict {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return { kind: 'none' };
    const nowMs = this.now();
    const connection = connectionOf(req);
    const cached = this.verdicts.get(connection);
    if (cached && cached.generation === trust.generation && nowMs <= cached.recheckAtMs) return cached.verdict;
    const { verdict, recheckAtMs } = this.verify(socket, trust, nowMs);
    this.verdicts.set(connection, { verdict, generation: trust.generation, recheckAtMs });
    return verdict;
  }

  private verify(socket: TLSSocket, trust: Trust, nowMs: number): { verdict: CertVerdict; recheckAtMs: number } {
    const forever = Number.POSITIVE_INFINITY;
    const peer = socket.getPeerCertificate(true);
    if (!peer || !peer.raw) return { verdict: { kind: 'none' }, recheckAtMs: forever };
    let leaf: X509Certificate;
    const intermediates: X509Certificate[] = [];
    try {
      leaf = new X509Certificate(peer.raw);
      let cur = peer.issuerCertificate;
      for (let i = 0; cur && cur.raw && i < 8; i++) {
        if (cur.raw.equals(peer.raw)) break;
        intermediates.push(new X509Certificate(cur.raw));
        if (cur.issuerCertificate === cur) break;
        cur = cur.issuerCertificate;
      }
    } catch {
      return { verdict: { kind: 'untrusted', reason: 'unparseable client certificate' }, recheckAtMs: forever };
    }
    const allowedNames = trust.cfg.allowedNames;
    const frontProxyUntil = trust.roots.length ? verifiedUntil(leaf, intermediates, trust.roots, nowMs) : undefined;
    if (frontProxyUntil !== undefined) {
      const cn = commonName(leaf);
      if (allowedNames.length === 0 || (cn !== undefined && allowedNames.includes(cn))) return { verdict: { kind: 'front-proxy' }, recheckAtMs: frontProxyUntil };
      if (!trust.clientRoots.length) {
        return { verdict: { kind: 'untrusted', reason: `client certificate CN "${cn ?? ''}" is not an allowed request-header name` }, recheckAtMs: forever };
      }
    }
    const clientUntil = trust.clientRoots.length ? verifiedUntil(leaf, intermediates, trust.clientRoots, nowMs) : undefined;
    if (clientUntil !== undefined) {
      const cn = commonName(leaf);
      if (cn) return { verdict: { kind: 'client', user: withAuthenticated({ name: cn, groups: organizations(leaf), extra: {} }) }, recheckAtMs: clientUntil };
    }
    return { verdict: { kind: 'untrusted', reason: 'client certificate is not signed by a trusted CA' }, recheckAtMs: forever };
  }

  /** Whether a handshaken connection's client certificate verifies (front-proxy or client CA) now. */
  trustsPeer(socket: TLSSocket): boolean {
    const kind = this.verify(socket, this.trust, this.now()).verdict.kind;
    return kind === 'front-proxy' || kind === 'client';
  }

  /** Strips identity headers from `req` (always) and says who sent it. */
  authenticate(req: ApiRequest): AuthnResult {
    // One snapshot for the whole request, however a reload interleaves.
    const trust = this.trust;
    const verdict = this.verdictFor(req, trust);
    let user: UserInfo | undefined;
    if (verdict.kind === 'front-proxy') user = this.fromHeaders(req, trust);
    this.stripIdentityHeaders(req, trust);
    if (verdict.kind === 'untrusted') return { ok: false, reason: verdict.reason };
    if (user) return { ok: true, user: withAuthenticated(user) };
    if (verdict.kind === 'client') return { ok: true, user: verdict.user };
    return { ok: true, user: ANONYMOUS };
  }

  private fromHeaders(req: ApiRequest, trust: Trust): UserInfo | undefined {
    let name: string | undefined;
    for (const h of trust.cfg.usernameHeaders) {
      name = headerValues(req, h).find((v) => v.trim() !== '');
      if (name) break;
    }
    if (!name) return undefined;
    let uid: string | undefined;
    for (const h of trust.cfg.uidHeaders) {
      uid = headerValues(req, h).find((v) => v.trim() !== '');
      if (uid) break;
    }
    const groups = trust.cfg.groupHeaders.flatMap((h) => headerValues(req, h));
    const extra: Record<string, string[]> = {};
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const lower = (raw[i] as string).toLowerCase();
      const prefix = trust.extraPrefixes.find((p) => lower.startsWith(p));
      if (prefix === undefined) continue;
      let key: string;
      try {
        key = decodeURIComponent(lower.slice(prefix.length));
      } catch {
        key = lower.slice(prefix.length);
      }
      if (key === '') continue;
      (extra[key] ??= []).push(raw[i + 1] as string);
    }
    return { name, ...(uid ? { uid } : {}), groups, extra };
  }

  private stripIdentityHeaders(req: ApiRequest, trust: Trust): void {
    for (const h of Object.keys(req.headers)) {
      if (trust.identityHeaders.includes(h) || trust.extraPrefixes.some((p) => h.startsWith(p))) delete req.headers[h];
    }
  }
}

/** Adds `system:authenticated` as k8s.io/apiserver's AuthenticatedGroupAdder does. */
export function withAuthenticated(user: UserInfo): UserInfo {
  if (user.name === 'system:anonymous') return user;
  if (user.groups.includes('system:authenticated') || user.groups.includes('system:unauthenticated')) return user;
  return { ...user, groups: [...user.groups, 'system:authenticated'] };
}

/** Request-header settings from ConfigMap kube-system/extension-apiserver-authentication data (docs/metrics-api.md §5.2). */
export function requestHeaderConfigFromConfigMap(data: Record<string, string>): RequestHeaderConfig {
  const list = (key: string, def: string[]): string[] => {
    const raw = data[key];
    if (raw === undefined || raw.trim() === '') return def;
    const v: unknown = JSON.parse(raw);
    if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new Error(`${key} must be a JSON array of strings`);
    return v as string[];
  };
  const caPem = data['requestheader-client-ca-file'];
  if (!caPem) throw new Error('extension-apiserver-authentication has no requestheader-client-ca-file: the aggregator could not be authenticated');
  const cfg: RequestHeaderConfig = {
    caPem,
    allowedNames: list('requestheader-allowed-names', []),
    usernameHeaders: list('requestheader-username-headers', ['X-Remote-User']),
    uidHeaders: list('requestheader-uid-headers', []),
    groupHeaders: list('requestheader-group-headers', ['X-Remote-Group']),
    extraHeaderPrefixes: list('requestheader-extra-headers-prefix', ['X-Remote-Extra-']),
  };
  if (data['client-ca-file']) cfg.clientCaPem = data['client-ca-file'];
  return cfg;
}
