// Create-or-update of an object a controller owns, like controller-runtime's CreateOrUpdate with an owner
// check: create it when missing; refuse to touch one controlled by someone else; otherwise replace it only
// when it differs from what is wanted. Quantities compare by value (the server canonicalises them), and a
// difference that survives our own last write unchanged is server-side defaulting we do not model, not
// drift, so it is not rewritten (no update loops).
import { createHash } from 'node:crypto';
import type { ObjectWriter } from './api-client.ts';
import { semanticEqual } from './semantic-equal.ts';
import type { ObjectMeta } from '../api/meta.ts';

export interface OwnedObject {
  metadata: ObjectMeta;
  spec?: unknown;
}

/** The object exists and its controller is not the owner we apply for. */
export class NotOwnedError extends Error {
  override name = 'NotOwnedError';
}

export interface ApplyRequest<T extends OwnedObject> {
  /** Collection URL (the object's URL is this plus its name). */
  path: string;
  desired: T;
  /** The object as the cache has it, if it exists. */
  existing: T | undefined;
  /** UID of the controller the object must carry in its ownerReferences. */
  ownerUid: string | undefined;
  /** Also keep the desired labels and annotations on the object (added; others are left alone). */
  syncLabelsAndAnnotations?: boolean;
  /** Annotations kept exactly as the desired object has them: added, changed, and removed when it lacks them. */
  exactAnnotations?: readonly string[];
  /** Update with a merge patch of the spec instead of a replace: for a kind the controller may patch but not
   *  update (its RBAC grants no more), which also leaves the object's metadata alone. */
  patchSpec?: boolean;
}

export interface ApplyResult<T> {
  object: T;
  action: 'created' | 'updated' | 'unchanged';
}

export function controllerUid(obj: { metadata: { ownerReferences?: { uid: string; controller?: boolean }[] } }): string | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller)?.uid;
}

/** `annotations` with each of `keys` as `desired` has it (removed when it has none). */
function withExact(annotations: Record<string, string> | undefined, desired: Record<string, string> | undefined, keys: readonly string[]): Record<string, string> | undefined {
  if (keys.length === 0) return annotations;
  const out = { ...annotations };
  for (const k of keys) {
    const v = desired?.[k];
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** True when `have` carries every entry of `want` with the same value. */
function hasAll(have: Record<string, string> | undefined, want: Record<string, string> | undefined): boolean {
  return Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);
}

/** A digest of the desired object, which is all that must be remembered of it: whether the next desired object is
 *  the same. Held for every owned HPA and TSP, the JSON itself was ~2 KB an object, 37 MiB of serve's heap at
 *  10,000 EHPAs (a sampling heap profile, BENCHMARKS.md "scale"); the digest is 44 characters. */
function digestOf(desired: unknown): string {
  return createHash('sha256').update(JSON.stringify(desired)).digest('base64');
}

/**
 * How long an object we created stands in for the cache's copy (client-go's ControllerExpectations idea, with
 * a shorter timeout): the owner is often reconciled again, on its own status write, before the informer has
 * delivered the object it just created, and a second create only earns a 409 and a failed reconcile (565
 * extra HPA creates for 2,000 new EHPAs). Past it the cache is trusted again, so an object deleted before the
 * cache ever saw it is created anew.
 */
export const CREATED_EXPECTATION_MS = 60_000;

export class OwnedApplier {
  /** Per object: a digest of what we last wanted, and the spec the server stored from that write. */
  private readonly applied = new Map<string, { desired: string; stored: unknown }>();
  /** Objects this applier created that the cache has not shown yet: when, and the identity the server gave. */
  private readonly created = new Map<string, { atMs: number; uid?: string; resourceVersion?: string }>();

  constructor(
    private readonly writer: Pick<ObjectWriter, 'create' | 'replace' | 'patch'>,
    private readonly now: () => number = Date.now,
  ) {}

  async apply<T extends OwnedObject>(r: ApplyRequest<T>): Promise<ApplyResult<T>> {
    const { desired, existing } = r;
    const name = desired.metadata.name;
    const key = `${r.path}/${name}`;
    if (!existing) {
      const pending = this.created.get(key);
      if (pending && this.now() - pending.atMs < CREATED_EXPECTATION_MS && this.applied.get(key)?.desired === digestOf(desired)) {
        // What we asked for with the identity the server gave it; a new object has no status to lose.
        const meta = { ...desired.metadata, ...(pending.uid ? { uid: pending.uid } : {}), ...(pending.resourceVersion ? { resourceVersion: pending.resourceVersion } : {}) };
        return { object: { ...desired, metadata: meta }, action: 'unchanged' };
      }
      const created = await this.writer.create<T>(r.path, desired);
      this.applied.set(key, { desired: digestOf(desired), stored: created.spec });
      this.created.set(key, { atMs: this.now(), ...(created.metadata?.uid ? { uid: created.metadata.uid } : {}), ...(created.metadata?.resourceVersion ? { resourceVersion: created.metadata.resourceVersion } : {}) });
      if (this.created.size > 1024) this.dropExpired();
      return { object: created, action: 'created' };
    }
    this.created.delete(key);
    if (controllerUid(existing) !== r.ownerUid) throw new NotOwnedError(`${name} exists and is not controlled by this owner`);
    const exact = r.exactAnnotations ?? [];
    const same =
      semanticEqual(existing.spec, desired.spec) &&
      exact.every((k) => existing.metadata.annotations?.[k] === desired.metadata.annotations?.[k]) &&
      (!r.syncLabelsAndAnnotations ||
        (hasAll(existing.metadata.labels, desired.metadata.labels) && hasAll(existing.metadata.annotations, desired.metadata.annotations)));
    if (same || this.onlyOurDefaulting(key, desired, existing.spec)) return { object: existing, action: 'unchanged' };
    if (r.patchSpec) {
      const patched = await this.writer.patch<T>(`${r.path}/${encodeURIComponent(name)}`, { spec: desired.spec });
      this.applied.set(key, { desired: digestOf(desired), stored: patched.spec });
      return { object: patched, action: 'updated' };
    }
    const merged: T = {
      ...existing,
      ...(r.syncLabelsAndAnnotations
        ? {
            metadata: {
              ...existing.metadata,
              labels: { ...existing.metadata.labels, ...desired.metadata.labels },
              annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations },
            },
          }
        : {}),
      spec: desired.spec,
    };
    const annotations = withExact(merged.metadata.annotations, desired.metadata.annotations, exact);
    const { annotations: _old, ...restMeta } = merged.metadata;
    const body: T = exact.length ? { ...merged, metadata: { ...restMeta, ...(annotations ? { annotations } : {}) } } : merged;
    const updated = await this.writer.replace<T>(`${r.path}/${encodeURIComponent(name)}`, body);
    this.applied.set(key, { desired: digestOf(desired), stored: updated.spec });
    return { object: updated, action: 'updated' };
  }

  /** Drops what we remember of `<path>/<name>` (its owner is gone), so the map does not outlive its objects. */
  forget(path: string, name: string): void {
    this.applied.delete(`${path}/${name}`);
    this.created.delete(`${path}/${name}`);
  }

  /** Forgets created objects whose expectation ran out (the owner was not reconciled again meanwhile). */
  private dropExpired(): void {
    const nowMs = this.now();
    for (const [k, c] of this.created) if (nowMs - c.atMs >= CREATED_EXPECTATION_MS) this.created.delete(k);
  }

  /** Objects whose last write is remembered. */
  get remembered(): number {
    return this.applied.size;
  }

  /** The desired object is what we last wrote and the stored spec is what that write returned. */
  private onlyOurDefaulting(key: string, desired: unknown, storedSpec: unknown): boolean {
    const last = this.applied.get(key);
    return !!last && last.desired === digestOf(desired) && semanticEqual(last.stored, storedSpec);
  }
}
