// Writes a `status` subresource only when it changed, with the object's resourceVersion as a
// precondition; on a conflict it re-reads the object and recomputes, so a status is never written from a
// stale view (and never blindly over another writer's).
import { KubeApiError, type ObjectWriter } from './api-client.ts';
import { semanticEqual } from './semantic-equal.ts';

export interface WithStatus<S> {
  metadata: { resourceVersion?: string };
  status?: S;
}

/** Merge-patch body that turns `from` into `to` at the top level of status (removed keys become null). */
export function statusPatch<S extends object>(from: S | undefined, to: S): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...(to as Record<string, unknown>) };
  for (const k of Object.keys(from ?? {})) if (!(k in to)) patch[k] = null;
  return patch;
}

export class StatusWriter {
  constructor(
    private readonly client: Pick<ObjectWriter, 'get' | 'patch'>,
    private readonly maxAttempts = 5,
  ) {}

  /**
   * `objectPath` is the object's URL (without /status). `compute` gets the current object and returns the
   * wanted status. Returns true when a write happened.
   */
  async update<S extends object, T extends WithStatus<S>>(objectPath: string, current: T, compute: (obj: T) => S): Promise<boolean> {
    let obj = current;
    for (let attempt = 1; ; attempt++) {
      const next = compute(obj);
      if (semanticEqual(obj.status ?? {}, next)) return false;
      try {
        await this.client.patch(`${objectPath}/status`, {
          metadata: { resourceVersion: obj.metadata.resourceVersion },
          status: statusPatch(obj.status, next),
        });
        return true;
      } catch (e) {
        if (!(e instanceof KubeApiError) || !e.conflict || attempt >= this.maxAttempts) throw e;
        obj = await this.client.get<T>(objectPath);
      }
    }
  }
}
