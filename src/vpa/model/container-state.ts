// One running container's sampling state (upstream recommender/model/container.go): CPU samples go
// straight to the aggregate (duplicates and out-of-order ones are discarded); memory keeps one peak per
// aggregation window [start + k·I, start + (k+1)·I), written to the aggregate at the window END, and an
// OOM becomes an artificial, bumped-up memory peak.
import type { AggregateContainerState } from './aggregate-container-state.ts';
import { GO_ZERO_TIME, isZeroTime, truncateDuration, type Instant, type Micros } from '../../gomath/go-time.ts';
import { memoryAmountFromBytes, resourceAmountMax, scaleResource, type ResourceAmount } from './resource-amount.ts';

/** Where a container's samples go; the cluster re-resolves it when pod labels change or GC drops it. */
export interface AggregateLink {
  aggregate(): AggregateContainerState;
}

export class ContainerState {
  lastCPUSampleStart: Instant = GO_ZERO_TIME;
  memoryPeak: ResourceAmount = 0;
  oomPeak: ResourceAmount = 0;
  windowEnd: Instant = GO_ZERO_TIME;
  lastMemorySampleStart: Instant = GO_ZERO_TIME;

  constructor(
    readonly link: AggregateLink,
    /** Container requests (informational, like upstream's Request). */
    public request?: { cpu?: ResourceAmount; memory?: ResourceAmount },
  ) {}

  /** Adds a CPU sample in millicores; false when discarded (negative, duplicate or out of order). */
  addCPUSample(millicores: ResourceAmount, time: Instant): boolean {
    if (!(millicores >= 0) || !(time > this.lastCPUSampleStart)) return false;
    this.link.aggregate().addCPUSample(millicores, time);
    this.lastCPUSampleStart = time;
    return true;
  }

  /** Adds a memory usage sample in bytes; false when discarded (negative or older than the last one). */
  addMemorySample(bytes: ResourceAmount, time: Instant): boolean {
    return this.addMemory(bytes, time, false);
  }

  getMaxMemoryPeak(): ResourceAmount {
    return resourceAmountMax(this.memoryPeak, this.oomPeak);
  }

  memoryAggregationInterval(): Micros {
    return this.link.aggregate().memoryAggregationInterval;
  }

  /**
   * Records an OOM kill at `time` of a container that had `requestedMemory` bytes: a memory peak of
   * max(used + minBump, used × ratio) with used = max(request, current window's usage peak). Throws when
   * the OOM is older than the last memory sample minus one interval.
   */
  recordOOM(time: Instant, requestedMemory: ResourceAmount): void {
    const agg = this.link.aggregate();
    const interval = agg.memoryAggregationInterval;
    if (!isZeroTime(this.lastMemorySampleStart) && time < this.lastMemorySampleStart - interval) {
      throw new Error('OOM event will be discarded - it is too old');
    }
    // The OOM peak is deliberately ignored so repeated OOMs cannot run away.
    const memoryUsed = resourceAmountMax(requestedMemory, this.memoryPeak);
    const memoryNeeded = resourceAmountMax(
      memoryUsed + memoryAmountFromBytes(agg.oomMinBumpUp),
      scaleResource(memoryUsed, agg.oomBumpUpRatio),
    );
    if (!this.addMemory(memoryNeeded, time, true)) throw new Error('adding OOM sample failed');
  }

  private addMemory(usage: ResourceAmount, ts: Instant, isOOM: boolean): boolean {
    if (!(usage >= 0) || (!isOOM && ts < this.lastMemorySampleStart)) return false;
    this.lastMemorySampleStart = ts;
    if (isZeroTime(this.windowEnd)) this.windowEnd = ts;
    let addNewPeak = false;
    if (ts < this.windowEnd) {
      const oldMax = this.getMaxMemoryPeak();
      if (oldMax !== 0 && usage > oldMax) {
        this.link.aggregate().subtractMemoryPeak(oldMax, this.windowEnd);
        addNewPeak = true;
      }
    } else {
      const interval = this.memoryAggregationInterval();
      const shift = truncateDuration(ts - this.windowEnd, interval) + interval;
      this.windowEnd += shift;
      this.memoryPeak = 0;
      this.oomPeak = 0;
      addNewPeak = true;
    }
    if (addNewPeak) {
      this.link.aggregate().addMemoryPeak(usage, this.windowEnd);
      if (isOOM) this.oomPeak = usage;
      else this.memoryPeak = usage;
    }
    return true;
  }
}
