// Everything the TSP reconciler remembers about one TSP between passes, in one record per key: dropped
// whole when the TSP is deleted, and all at once when the controller stops. Nothing here is retry timing:
// when a failed refit is tried again is the work queue's per-key backoff (tsp-retry.ts).
import type { Condition } from '../../api/meta.ts';
import type { ForecastSeries } from './forecaster.ts';
import type { MetricOutcome } from './tsp-status.ts';
import type { CoverageCount, KeptMetricForecast } from './realized-coverage.ts';

export interface CachedForecast {
  builtAtMs: number;
  series: ForecastSeries[];
  /** Last forecast timestamp common to every series (unix s). */
  coversUntilS: number;
  /** The forecasts published over the last day (the realized coverage judges them at each refit). */
  kept: KeptMetricForecast[];
  /** Their realized coverage as of the latest refit. */
  realized?: CoverageCount;
}

/** What a status is built from, kept while its namespace waits for write budget (tenant-pacer.ts). */
export interface HeldStatus {
  version: string;
  outcomes: MetricOutcome[];
  /** The conditions after Ready: Defaulted, and auto mode's Calibrated and PredictionPays. */
  autoConditions: Omit<Condition, 'lastTransitionTime'>[];
  builtAtMs: number;
  /** A refit of this pass failed: once written, the key comes back with the work queue's backoff. */
  refitFailed: boolean;
  /** Its bytes are paid for: it is written from this instant on, without asking the pacer again. */
  writeAtMs?: number;
}

export interface TspKeyState {
  /** Forecasts by (metric, query, algorithm), reused while they cover the horizon. */
  forecasts: Map<string, CachedForecast>;
  /** Spec (tspSpecVersion) that produced the current status, so a spec change refreshes at once. */
  computedVersion?: string;
  /** A status built but held back by its namespace's write budget, written as built later. */
  held?: HeldStatus;
  /** Refused for its status size, for this spec version, until this instant. */
  refused?: { version: string; retryAtMs: number };
  /** The pass in flight, to cancel. */
  inflight?: AbortController;
}

export class TspKeyStates {
  private readonly byKey = new Map<string, TspKeyState>();
  private closed = false;

  /** The key's state, empty at first use. Once closed, a fresh one that nothing keeps. */
  of(key: string): TspKeyState {
    const known = this.byKey.get(key);
    if (known) return known;
    const state: TspKeyState = { forecasts: new Map() };
    if (!this.closed) this.byKey.set(key, state);
    return state;
  }

  /** The key's state if it has one (nothing is made). */
  find(key: string): TspKeyState | undefined {
    return this.byKey.get(key);
  }

  entries(): IterableIterator<[string, TspKeyState]> {
    return this.byKey.entries();
  }

  /** The TSP is gone: everything about it goes. */
  forget(key: string): void {
    this.byKey.delete(key);
  }

  /** The controller stops: every state goes, and passes still running keep nothing they learn. */
  close(): void {
    this.closed = true;
    this.byKey.clear();
  }
}
