// metav1.Status bodies for every non-2xx answer (docs/metrics-api.md §3.6).

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason?: string;
  details?: Record<string, unknown>;
  code: number;
}

export const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  413: 'RequestEntityTooLarge',
  // k8s.io/apimachinery v0.34 pkg/api/errors NewInvalid: the object the request depends on is invalid.
  422: 'Invalid',
  503: 'ServiceUnavailable',
};

export function statusBody(code: number, message: string, details?: Record<string, unknown>): StatusBody {
  const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  const reason = REASONS[code];
  if (reason) body.reason = reason;
  if (details) body.details = details;
  return body;
}

/** An error a provider raises on purpose, with the HTTP code it maps to. */
export class MetricError extends Error {
  override name = 'MetricError';
  constructor(
    readonly code: 400 | 404 | 422 | 500 | 503,
    message: string,
    /** metav1.StatusDetails, for answers that name an object and its fields (422). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** One invalid field of the object a metric is computed from (metav1.StatusCause). */
export interface InvalidField {
  field: string;
  message: string;
}

/**
 * 422 Invalid for a metric whose EHPA (or other object) is flagged invalid: the request itself is fine, the
 * configuration it reads is not, and retrying will not help until the object is fixed. Shaped like the
 * apiserver's own answer for an invalid object (apimachinery pkg/api/errors NewInvalid): details name the
 * object and carry one cause per field.
 */
export function invalidObject(object: { group: string; kind: string; namespace: string; name: string }, fields: readonly InvalidField[]): MetricError {
  const list = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  return new MetricError(422, `${object.kind} ${object.namespace}/${object.name} is invalid: ${list}`, {
    name: object.name,
    group: object.group,
    kind: object.kind,
    causes: fields.map((f) => ({ reason: 'FieldValueInvalid', message: f.message, field: f.field })),
  });
}

export const notFound = (m: string) => new MetricError(404, m);
export const badRequest = (m: string) => new MetricError(400, m);
export const unavailable = (m: string) => new MetricError(503, m);
