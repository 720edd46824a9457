// What a request asks for, worked out the way k8s.io/apiserver's requestinfo.go does it, so our
// SubjectAccessReviews carry the same attributes as the Go reference's (docs/metrics-api.md §5.4),
// plus which of our routes it is (§2.1). Every path segment is percent-decoded before use (§7 G1: `%2A`).

export class BadPathError extends Error {
  override name = 'BadPathError';
}

export interface ResourceAttributes {
  namespace?: string;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributes {
  path: string;
  verb: string;
}

export type Route =
  | { kind: 'health'; path: string }
  | { kind: 'discovery-root' }
  | { kind: 'discovery-group'; group: string }
  | { kind: 'discovery-version'; group: string; version: string }
  | { kind: 'custom'; version: 'v1beta1' | 'v1beta2'; namespace?: string; resource: string; name: string; metric: string; namespaceObject: boolean }
  | { kind: 'external'; namespace: string; metric: string }
  | { kind: 'metrics' }
  | { kind: 'bad-request'; message: string }
  | { kind: 'not-found' };

export interface RequestInfo {
  route: Route;
  resource?: ResourceAttributes;
  nonResource?: NonResourceAttributes;
}

export const CUSTOM_GROUP = 'custom.metrics.k8s.io';
export const EXTERNAL_GROUP = 'external.metrics.k8s.io';
export const CUSTOM_VERSIONS = ['v1beta2', 'v1beta1'] as const;
export const EXTERNAL_VERSIONS = ['v1beta1'] as const;

const HEALTH = new Set(['/healthz', '/livez', '/readyz']);

function resourceVerb(method: string, hasName: boolean): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return hasName ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

function decodeSegments(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return [];
  return trimmed.split('/').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw new BadPathError(`invalid percent-encoding in path segment "${s}"`);
    }
  });
}

function customRoute(version: string, rest: string[]): Route {
  const v = version as 'v1beta1' | 'v1beta2';
  if (rest.some((s) => s === '')) return { kind: 'not-found' };
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    const namespace = rest[1] as string;
    const tail = rest.slice(2);
    if (tail.length === 2 && tail[0] === 'metrics') {
      return { kind: 'custom', version: v, resource: 'namespaces', name: namespace, metric: tail[1] as string, namespaceObject: true };
    }
    if (tail.length === 3) {
      return { kind: 'custom', version: v, namespace, resource: tail[0] as string, name: tail[1] as string, metric: tail[2] as string, namespaceObject: false };
    }
    if (tail.length === 1 || tail.length === 2) return { kind: 'bad-request', message: 'invalid request path' };
    return { kind: 'not-found' };
  }
  if (rest.length === 3) {
    return { kind: 'custom', version: v, resource: rest[0] as string, name: rest[1] as string, metric: rest[2] as string, namespaceObject: false };
  }
  return { kind: 'not-found' };
}

/** Parses method + path (without query). Throws BadPathError for undecodable segments. */
export function requestInfo(method: string, path: string): RequestInfo {
  const nonResource = (route: Route): RequestInfo => ({
    route,
    nonResource: { path, verb: method === 'HEAD' ? 'get' : method.toLowerCase() },
  });
  if (HEALTH.has(path)) return nonResource({ kind: 'health', path });
  if (path === '/metrics') return nonResource({ kind: 'metrics' });
  const parts = decodeSegments(path);
  if (parts[0] !== 'apis') return nonResource({ kind: 'not-found' });
  if (parts.length === 1) return nonResource({ kind: 'discovery-root' });
  const group = parts[1] as string;
  const knownGroup = group === CUSTOM_GROUP || group === EXTERNAL_GROUP;
  if (parts.length === 2) return nonResource(knownGroup ? { kind: 'discovery-group', group } : { kind: 'not-found' });
  const version = parts[2] as string;
  const knownVersion =
    (group === CUSTOM_GROUP && (CUSTOM_VERSIONS as readonly string[]).includes(version)) ||
    (group === EXTERNAL_GROUP && (EXTERNAL_VERSIONS as readonly string[]).includes(version));
  if (parts.length === 3) return nonResource(knownVersion ? { kind: 'discovery-version', group, version } : { kind: 'not-found' });

  // A resource request: /apis/<group>/<version>/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]
  let rest = parts.slice(3);
  const attrs: ResourceAttributes = { verb: '', group, version, resource: '' };
  if (rest[0] === 'namespaces' && rest.length > 1) {
    attrs.namespace = rest[1] as string;
    if (rest.length > 2) rest = rest.slice(2);
  }
  attrs.resource = rest[0] as string;
  if (rest.length >= 2) attrs.name = rest[1] as string;
  if (rest.length >= 3) attrs.subresource = rest[2] as string;
  attrs.verb = resourceVerb(method, attrs.name !== undefined);

  let route: Route = { kind: 'not-found' };
  if (knownVersion && group === CUSTOM_GROUP) route = customRoute(version, parts.slice(3));
  else if (knownVersion && group === EXTERNAL_GROUP) {
    const r = parts.slice(3);
    if (r.length === 3 && r[0] === 'namespaces' && r[1] !== '' && r[2] !== '') {
      route = { kind: 'external', namespace: r[1] as string, metric: r[2] as string };
    } else if (r[0] === 'namespaces' && r.length < 3) route = { kind: 'bad-request', message: 'invalid request path' };
  }
  return { route, resource: attrs };
}
