// Work waiting its turn, served round-robin by tenant (a namespace) instead of in arrival order: a namespace
// that queues a thousand items then waits behind itself, while every other namespace's next item goes after
// at most one item per other tenant waiting (docs/security.md §8). Within a tenant, first in, first out.
// The controllers' work queue (work-queue.ts) and the forecast pool's waiting fits both use it.
export class FairQueue<T> {
  private readonly byTenant = new Map<string, T[]>();
  /** Tenants with waiting jobs, in the order they are served next. */
  private readonly turn: string[] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(tenant: string, item: T): void {
    let q = this.byTenant.get(tenant);
    if (!q) {
      this.byTenant.set(tenant, (q = []));
      this.turn.push(tenant);
    }
    q.push(item);
    this.count++;
  }

  /** The next tenant's oldest job; that tenant goes to the back of the turn. */
  shift(): T | undefined {
    const tenant = this.turn.shift();
    if (tenant === undefined) return undefined;
    const q = this.byTenant.get(tenant) as T[];
    const item = q.shift() as T;
    this.count--;
    if (q.length > 0) this.turn.push(tenant);
    else this.byTenant.delete(tenant);
    return item;
  }

  /** Removes one waiting job (cancelled); false when it was not waiting. */
  remove(tenant: string, item: T): boolean {
    const q = this.byTenant.get(tenant);
    const i = q ? q.indexOf(item) : -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    this.count--;
    if (q.length === 0) {
      this.byTenant.delete(tenant);
      this.turn.splice(this.turn.indexOf(tenant), 1);
    }
    return true;
  }

  /** Empties the queue, returning every job in serving order. */
  drain(): T[] {
    const out: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) out.push(item);
    return out;
  }
}
