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
    readonly code: 400 | 404 | 500 | 503,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (m: string) => new MetricError(404, m);
export const badRequest = (m: string) => new MetricError(400, m);
export const unavailable = (m: string) => new MetricError(503, m);
