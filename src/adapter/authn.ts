// Who is asking (docs/metrics-api.md §5.3). The aggregator proves itself with its front-proxy client
// certificate, which must chain to the request-header CA specifically (never just "some CA the TLS layer
// trusts") and, if allowed names are configured, carry one of them as CN; only then are the X-Remote-*
// identity headers believed. Identity headers are stripped from every request whatever happens. A client
// certificate chaining to --client-ca-file (optional) authenticates as its CN/O. No certificate: anonymous.
// A certificate that proves nothing: 401.
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

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

function commonName(c: X509Certificate): string | undefined {
  for (const line of c.subject.split('\n')) if (line.startsWith('CN=')) return line.slice(3);
  return undefined;
}

function organizations(c: X509Certificate): string[] {
  return c.subject.split('\n').filter((l) => l.startsWith('O=')).map((l) => l.slice(2));
}

/** Verifies `leaf` up to a root in `roots`, through the intermediates the client sent. */
export function chainsTo(leaf: X509Certificate, intermediates: X509Certificate[], roots: X509Certificate[], nowMs: number): boolean {
  if (!validAt(leaf, nowMs)) return false;
  const eku = leaf.keyUsage;
  if (eku && eku.length > 0 && !eku.includes(CLIENT_AUTH_OID)) return false;
  let cur = leaf;
  for (let depth = 0; depth < 8; depth++) {
    for (const root of roots) {
      if (root.ca && validAt(root, nowMs) && cur.checkIssued(root) && cur.verify(root.publicKey)) return true;
    }
    const next = intermediates.find((i) => i !== cur && i.ca && validAt(i, nowMs) && cur.checkIssued(i) && cur.verify(i.publicKey));
    if (!next) return false;
    cur = next;
  }
  return false;
}

/** Header values in arrival order, unmerged (Node joins repeated headers with ", "; docs/metrics-api.md §7 G18). */
function headerValues(req: IncomingMessage, name: string): string[] {
  const out: string[] = [];
  const lower = name.toLowerCase();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === lower) out.push(raw[i + 1] as string);
  return out;
}

type CertVerdict = { kind: 'none' } | { kind: 'front-proxy' } | { kind: 'client'; user: UserInfo } | { kind: 'untrusted'; reason: string };

export class RequestHeaderAuthenticator {
  private readonly roots: X509Certificate[];
  private readonly clientRoots: X509Certificate[];
  private readonly identityHeaders: string[];
  private readonly extraPrefixes: string[];
  // The peer certificate is fixed for a TLS connection: verify it once per socket.
  private readonly verdicts = new WeakMap<object, CertVerdict>();

  constructor(
    private readonly cfg: RequestHeaderConfig,
    private readonly now: () => number,
  ) {
    this.roots = parsePemBundle(cfg.caPem).filter((c) => c.ca);
    this.clientRoots = cfg.clientCaPem ? parsePemBundle(cfg.clientCaPem).filter((c) => c.ca) : [];
    this.identityHeaders = [...cfg.usernameHeaders, ...cfg.uidHeaders, ...cfg.groupHeaders].map((h) => h.toLowerCase());
    this.extraPrefixes = cfg.extraHeaderPrefixes.map((p) => p.toLowerCase());
  }

  private verdictFor(req: IncomingMessage): CertVerdict {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return { kind: 'none' };
    const cached = this.verdicts.get(socket);
    if (cached) return cached;
    const verdict = this.verify(socket);
    this.verdicts.set(socket, verdict);
    return verdict;
  }

  private verify(socket: TLSSocket): CertVerdict {
    const peer = socket.getPeerCertificate(true);
    if (!peer || !peer.raw) return { kind: 'none' };
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
      return { kind: 'untrusted', reason: 'unparseable client certificate' };
    }
    const nowMs = this.now();
    if (this.roots.length && chainsTo(leaf, intermediates, this.roots, nowMs)) {
      const cn = commonName(leaf);
      if (this.cfg.allowedNames.length === 0 || (cn !== undefined && this.cfg.allowedNames.includes(cn))) return { kind: 'front-proxy' };
      if (!this.clientRoots.length) return { kind: 'untrusted', reason: `client certificate CN "${cn ?? ''}" is not an allowed request-header name` };
    }
    if (this.clientRoots.length && chainsTo(leaf, intermediates, this.clientRoots, nowMs)) {
      const cn = commonName(leaf);
      if (cn) return { kind: 'client', user: withAuthenticated({ name: cn, groups: organizations(leaf), extra: {} }) };
    }
    return { kind: 'untrusted', reason: 'client certificate is not signed by a trusted CA' };
  }

  /** Strips identity headers from `req` (always) and says who sent it. */
  authenticate(req: IncomingMessage): AuthnResult {
    const verdict = this.verdictFor(req);
    let user: UserInfo | undefined;
    if (verdict.kind === 'front-proxy') user = this.fromHeaders(req);
    this.stripIdentityHeaders(req);
    if (verdict.kind === 'untrusted') return { ok: false, reason: verdict.reason };
    if (user) return { ok: true, user: withAuthenticated(user) };
    if (verdict.kind === 'client') return { ok: true, user: verdict.user };
    return { ok: true, user: ANONYMOUS };
  }

  private fromHeaders(req: IncomingMessage): UserInfo | undefined {
    let name: string | undefined;
    for (const h of this.cfg.usernameHeaders) {
      name = headerValues(req, h).find((v) => v.trim() !== '');
      if (name) break;
    }
    if (!name) return undefined;
    let uid: string | undefined;
    for (const h of this.cfg.uidHeaders) {
      uid = headerValues(req, h).find((v) => v.trim() !== '');
      if (uid) break;
    }
    const groups = this.cfg.groupHeaders.flatMap((h) => headerValues(req, h));
    const extra: Record<string, string[]> = {};
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const lower = (raw[i] as string).toLowerCase();
      const prefix = this.extraPrefixes.find((p) => lower.startsWith(p));
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

  private stripIdentityHeaders(req: IncomingMessage): void {
    for (const h of Object.keys(req.headers)) {
      if (this.identityHeaders.includes(h) || this.extraPrefixes.some((p) => h.startsWith(p))) delete req.headers[h];
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
