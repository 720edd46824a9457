// The filter chain in front of every non-health request, as the apiserver library orders it: authenticate
// (front-proxy certificate and request headers, or a client certificate), then authorize the exact request
// with a SubjectAccessReview (system:masters skips it). A refusal is the metav1.Status the Go library
// writes (docs/metrics-api.md §5.3, §5.4).
import type { AuthnResult, UserInfo } from './authn.ts';
import type { Authorizer } from './authz.ts';
import type { RequestInfo } from './request-info.ts';
import { statusBody } from './status.ts';
import type { ApiRequest } from './http-reply.ts';

const ALWAYS_ALLOWED_GROUP = 'system:masters';

export interface FilterDeps {
  authenticate(req: ApiRequest): AuthnResult;
  authorizer: Authorizer;
}

export type FilterResult = { ok: true; user: UserInfo } | { ok: false; code: 401 | 403; body: unknown };

export function forbiddenMessage(user: UserInfo, info: RequestInfo): { message: string; details: Record<string, unknown> } {
  const r = info.resource;
  if (!r) {
    return { message: `forbidden: User "${user.name}" cannot ${info.nonResource?.verb ?? 'get'} path "${info.nonResource?.path ?? ''}"`, details: {} };
  }
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const object = r.name !== undefined ? `${r.resource}.${r.group} "${r.name}"` : `${r.resource}.${r.group}`;
  const where = r.namespace !== undefined ? ` in the namespace "${r.namespace}"` : '';
  return {
    message: `${object} is forbidden: User "${user.name}" cannot ${r.verb} resource "${resource}" in API group "${r.group}"${where}`,
    details: { ...(r.name !== undefined ? { name: r.name } : {}), group: r.group, kind: r.resource },
  };
}

export async function authenticateAndAuthorize(deps: FilterDeps, req: ApiRequest, info: RequestInfo): Promise<FilterResult> {
  const authn = deps.authenticate(req);
  if (!authn.ok) return { ok: false, code: 401, body: statusBody(401, 'Unauthorized') };
  const user = authn.user;
  if (!user.groups.includes(ALWAYS_ALLOWED_GROUP)) {
    const decision = await deps.authorizer.authorize(user, info.resource ? { resource: info.resource } : { nonResource: info.nonResource! });
    if (!decision.allowed) {
      const f = forbiddenMessage(user, info);
      return { ok: false, code: 403, body: statusBody(403, f.message, f.details) };
    }
  }
  return { ok: true, user };
}
