// Upstream side of `npm run bench -- vpa-loop`: the VPA recommender's own loop (the steps of
// routines.recommender.RunOnce, called one by one to time them: LoadVPAs, LoadPods, LoadRealTimeMetrics,
// UpdateVPAs with its worker goroutines, MaintainCheckpoints with the real checkpoint writer, aggregate
// GC) on the
// same synthetic cluster as bench/vpa-loop/run.ts, fed from memory. The API clients are stubs that
// count requests, the feeder is ours (it reads the in-memory workload the way cluster_feeder.go reads
// its listers, with memory-saver mode off, upstream's default).
//
//	vpa-loop-upstream < params.json > figures.json
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	vpa_types "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	vpa_api "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned/typed/autoscaling.k8s.io/v1"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/checkpoint"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/input"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/logic"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/model"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/routines"
	controllerfetcher "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/target/controller_fetcher"
)

type params struct {
	Workloads    int   `json:"workloads"`
	Pods         int   `json:"pods"`
	Ticks        int   `json:"ticks"`
	HistoryHours int   `json:"historyHours"`
	StartMs      int64 `json:"startMs"`
}

type figures struct {
	LoopMs            []float64            `json:"loopMs"`
	PhaseMs           []map[string]float64 `json:"phaseMs"`
	StatusPatches     []int64              `json:"statusPatches"`
	CheckpointPatches []int64              `json:"checkpointPatches"`
	TrackedContainers int                  `json:"trackedContainers"`
	HistorySamples    int                  `json:"historySamples"`
}

// Same formulas as bench/vpa-loop/run.ts.
func cpuMilli(tick, k int) model.ResourceAmount {
	return model.ResourceAmount(50 + (tick*7919+k*31)%400)
}
func memBytes(tick, k int) model.ResourceAmount {
	return model.ResourceAmount(300*1024*1024 + ((tick*104729+k*7)%97)*4*1024*1024)
}

// Upstream's flag defaults (recommender/config/config.go).
var defaultConfig = logic.RecommendationConfig{
	SafetyMarginFraction: 0.15, PodMinCPUMillicores: 25, PodMinMemoryMb: 250,
	TargetCPUPercentile: 0.9, LowerBoundCPUPercentile: 0.5, UpperBoundCPUPercentile: 0.95, ConfidenceIntervalCPU: 24 * time.Hour,
	TargetMemoryPercentile: 0.9, LowerBoundMemoryPercentile: 0.5, UpperBoundMemoryPercentile: 0.95, ConfidenceIntervalMemory: 24 * time.Hour,
}

type pod struct {
	id     model.PodID
	labels labels.Set
}

// ---- API stubs: count and accept.

var statusPatches, checkpointPatches atomic.Int64

type vpaStub struct {
	vpa_api.VerticalPodAutoscalerInterface
}

func (vpaStub) Patch(_ context.Context, _ string, _ types.PatchType, _ []byte, _ metav1.PatchOptions, _ ...string) (*vpa_types.VerticalPodAutoscaler, error) {
	statusPatches.Add(1)
	return &vpa_types.VerticalPodAutoscaler{}, nil
}

type vpaGetter struct{}

func (vpaGetter) VerticalPodAutoscalers(string) vpa_api.VerticalPodAutoscalerInterface {
	return vpaStub{}
}

type cpStub struct {
	vpa_api.VerticalPodAutoscalerCheckpointInterface
}

func (cpStub) Patch(_ context.Context, _ string, _ types.PatchType, _ []byte, _ metav1.PatchOptions, _ ...string) (*vpa_types.VerticalPodAutoscalerCheckpoint, error) {
	checkpointPatches.Add(1)
	return &vpa_types.VerticalPodAutoscalerCheckpoint{}, nil
}

type cpGetter struct{}

func (cpGetter) VerticalPodAutoscalerCheckpoints(string) vpa_api.VerticalPodAutoscalerCheckpointInterface {
	return cpStub{}
}

// Every VPA target is its own topmost controller (Deployments), as the real fetcher would answer.
type fetcherStub struct{}

func (fetcherStub) FindTopMostWellKnownOrScalable(_ context.Context, c *controllerfetcher.ControllerKeyWithAPIVersion) (*controllerfetcher.ControllerKeyWithAPIVersion, error) {
	return c, nil
}

// ---- Feeder over the in-memory workload (what cluster_feeder.go does with its listers).

type feeder struct {
	input.ClusterStateFeeder
	cluster   model.ClusterState
	vpas      []*vpa_types.VerticalPodAutoscaler
	selectors []labels.Selector
	pods      []pod
	requests  model.Resources
	now       time.Time
	tick      int
}

func (f *feeder) LoadVPAs(context.Context) {
	for i, v := range f.vpas {
		if err := f.cluster.AddOrUpdateVpa(v, f.selectors[i]); err != nil {
			panic(err)
		}
	}
	f.cluster.SetObservedVPAs(f.vpas)
}

func (f *feeder) LoadPods() {
	for _, p := range f.pods {
		f.cluster.AddOrUpdatePod(p.id, p.labels, corev1.PodRunning)
		if err := f.cluster.AddOrUpdateContainer(model.ContainerID{PodID: p.id, ContainerName: "main"}, f.requests); err != nil {
			panic(err)
		}
	}
}

func (f *feeder) LoadRealTimeMetrics(context.Context) {
	for k, p := range f.pods {
		id := model.ContainerID{PodID: p.id, ContainerName: "main"}
		_ = f.cluster.AddSample(&model.ContainerUsageSampleWithKey{Container: id, ContainerUsageSample: model.ContainerUsageSample{MeasureStart: f.now, Usage: cpuMilli(f.tick, k), Resource: model.ResourceCPU}})
		_ = f.cluster.AddSample(&model.ContainerUsageSampleWithKey{Container: id, ContainerUsageSample: model.ContainerUsageSample{MeasureStart: f.now, Usage: memBytes(f.tick, k), Resource: model.ResourceMemory}})
	}
}

func (f *feeder) DeleteRemovedPods()                        {}
func (f *feeder) GarbageCollectCheckpoints(context.Context) {}

func main() {
	var p params
	if err := json.NewDecoder(os.Stdin).Decode(&p); err != nil {
		fmt.Fprintln(os.Stderr, "bad input:", err)
		os.Exit(2)
	}
	model.InitializeAggregationsConfig(model.NewAggregationsConfig(24*time.Hour, 8, 24*time.Hour, 24*time.Hour, 1.2, 100*1024*1024))
	cluster := model.NewClusterState(time.Hour)
	f := &feeder{cluster: cluster, requests: model.Resources{model.ResourceCPU: 250, model.ResourceMemory: 512 * 1024 * 1024}}
	for w := 0; w < p.Workloads; w++ {
		app := fmt.Sprintf("app-%d", w)
		f.vpas = append(f.vpas, &vpa_types.VerticalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: "bench", Generation: 1},
			Spec:       vpa_types.VerticalPodAutoscalerSpec{TargetRef: &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: app}},
		})
		f.selectors = append(f.selectors, labels.SelectorFromSet(labels.Set{"app": app}))
		for i := 0; i < p.Pods; i++ {
			f.pods = append(f.pods, pod{id: model.PodID{Namespace: "bench", PodName: fmt.Sprintf("%s-7d9c8b6f5d-%05d", app, i)}, labels: labels.Set{"app": app, "pod-template-hash": "7d9c8b6f5d"}})
		}
	}
	rec := routines.RecommenderFactory{
		ClusterState:                 cluster,
		ClusterStateFeeder:           f,
		ControllerFetcher:            fetcherStub{},
		CheckpointWriter:             checkpoint.NewCheckpointWriter(cluster, cpGetter{}),
		PodResourceRecommender:       logic.CreatePodResourceRecommender(defaultConfig),
		RecommendationFormat:         logic.RecommendationFormat{RoundCPUMillicores: 1, RoundMemoryBytes: 1},
		VpaClient:                    vpaGetter{},
		RecommendationPostProcessors: []routines.RecommendationPostProcessor{routines.NewCappingRecommendationProcessor(nil)},
		CheckpointsGCInterval:        10 * time.Minute,
		CheckpointsWriteTimeout:      time.Minute,
		UseCheckpoints:               true,
		UpdateWorkerCount:            10,
	}.Make()

	var out figures
	start := time.UnixMilli(p.StartMs).UTC()
	for t := 0; t < p.Ticks; t++ {
		f.tick = t
		f.now = start.Add(time.Duration(t) * time.Minute)
		statusPatches.Store(0)
		checkpointPatches.Store(0)
		t0 := time.Now()
		if t == 0 {
			// Start-up history, like InitFromHistoryProvider: pods first, then their samples.
			f.LoadVPAs(context.Background())
			f.LoadPods()
			for k, pd := range f.pods {
				id := model.ContainerID{PodID: pd.id, ContainerName: "main"}
				for h := p.HistoryHours; h >= 1; h-- {
					ts := f.now.Add(-time.Duration(h) * time.Hour)
					_ = cluster.AddSample(&model.ContainerUsageSampleWithKey{Container: id, ContainerUsageSample: model.ContainerUsageSample{MeasureStart: ts, Usage: cpuMilli(h, k), Resource: model.ResourceCPU}})
					_ = cluster.AddSample(&model.ContainerUsageSampleWithKey{Container: id, ContainerUsageSample: model.ContainerUsageSample{MeasureStart: ts, Usage: memBytes(h, k), Resource: model.ResourceMemory}})
					out.HistorySamples += 2
				}
			}
		}
		// RunOnce's steps, in its order, timed one by one.
		ph := map[string]float64{}
		mark := t0
		step := func(name string) {
			n := time.Now()
			ph[name] += float64(n.Sub(mark).Microseconds()) / 1000
			mark = n
		}
		ctx := context.Background()
		f.LoadVPAs(ctx)
		f.LoadPods()
		f.LoadRealTimeMetrics(ctx)
		f.DeleteRemovedPods()
		step("feed")
		rec.UpdateVPAs()
		step("update")
		stepCtx, cancel := context.WithDeadline(ctx, time.Now().Add(time.Minute))
		rec.MaintainCheckpoints(stepCtx)
		cancel()
		step("checkpoints")
		cluster.RateLimitedGarbageCollectAggregateCollectionStates(ctx, time.Now(), fetcherStub{})
		step("gc")
		out.LoopMs = append(out.LoopMs, float64(time.Since(t0).Microseconds())/1000)
		out.PhaseMs = append(out.PhaseMs, ph)
		out.StatusPatches = append(out.StatusPatches, statusPatches.Load())
		out.CheckpointPatches = append(out.CheckpointPatches, checkpointPatches.Load())
		// What the VPA informer would deliver before the next loop: the status just written.
		for _, v := range f.vpas {
			if m, ok := cluster.VPAs()[model.VpaID{Namespace: v.Namespace, VpaName: v.Name}]; ok {
				v.Status = *m.AsStatus()
			}
		}
	}
	out.TrackedContainers = len(f.pods)
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
