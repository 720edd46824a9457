// The slice of a core/v1 Pod this project reads (plain JSON from the API or an informer cache).

/** The fields of a core/v1 Pod the controllers and the adapter read (plain JSON from the API). */
export interface PodLike {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { containers?: { name: string; resources?: { requests?: Record<string, string> } }[] };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  };
}
