// Differential oracle for ehpa-adapter's VPA recommender core: replays scenarios through the upstream
// vertical-pod-autoscaler model (clusterState, AggregateContainerState, logic estimators, routines
// post-processors, checkpoint save/load) and prints what upstream recommends.
//
// Usage:
//
//	vpa-oracle replay  < scenarios.json > results.json
//	vpa-oracle bench   < bench.json     > figures.json
//
// Scenario shape (all in one JSON document so a thousand scenarios cost one process start):
//
//	{"scenarios":[{"name":..., "config":{...}, "vpa":{VerticalPodAutoscaler}, "phases":[{"events":[...], "now":RFC3339}]}]}
//
// Each phase starts a fresh recommender ("process restart") that loads the previous phase's checkpoints,
// replays its events, garbage-collects at `now`, recommends, and writes checkpoints at `now`.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	vpa_types "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/logic"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/model"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/routines"
	controllerfetcher "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/target/controller_fetcher"
)

type config struct {
	MarginFraction             float64 `json:"marginFraction"`
	PodMinCPUMillicores        float64 `json:"podMinCpuMillicores"`
	PodMinMemoryMb             float64 `json:"podMinMemoryMb"`
	TargetCPUPercentile        float64 `json:"targetCpuPercentile"`
	LowerBoundCPUPercentile    float64 `json:"lowerBoundCpuPercentile"`
	UpperBoundCPUPercentile    float64 `json:"upperBoundCpuPercentile"`
	TargetMemoryPercentile     float64 `json:"targetMemoryPercentile"`
	LowerBoundMemoryPercentile float64 `json:"lowerBoundMemoryPercentile"`
	UpperBoundMemoryPercentile float64 `json:"upperBoundMemoryPercentile"`
	ConfidenceIntervalCPUS     int64   `json:"confidenceIntervalCpuSeconds"`
	ConfidenceIntervalMemoryS  int64   `json:"confidenceIntervalMemorySeconds"`
	MemoryAggregationIntervalS int64   `json:"memoryAggregationIntervalSeconds"`
	MemoryAggregationCount     int64   `json:"memoryAggregationIntervalCount"`
	CPUHalfLifeS               int64   `json:"cpuHistogramDecayHalfLifeSeconds"`
	MemoryHalfLifeS            int64   `json:"memoryHistogramDecayHalfLifeSeconds"`
	OOMBumpUpRatio             float64 `json:"oomBumpUpRatio"`
	OOMMinBumpUpBytes          float64 `json:"oomMinBumpUpBytes"`
	HumanizeMemory             bool    `json:"humanizeMemory"`
	RoundCPUMillicores         int     `json:"roundCpuMillicores"`
	RoundMemoryBytes           int     `json:"roundMemoryBytes"`
	IntegerCPUPostProcessor    bool    `json:"cpuIntegerPostProcessorEnabled"`
	MaxAllowedCPU              string  `json:"maxAllowedCpu"`
	MaxAllowedMemory           string  `json:"maxAllowedMemory"`
}

type event struct {
	Time                  string            `json:"time"`
	Container             string            `json:"container"`
	Pod                   string            `json:"pod"`
	Labels                map[string]string `json:"labels"`
	CPUCores              *float64          `json:"cpuCores"`
	CPUMillicores         *int64            `json:"cpuMillicores"`
	MemoryBytes           *float64          `json:"memoryBytes"`
	OOMMemoryRequestBytes *int64            `json:"oomMemoryRequestBytes"`
}

type phase struct {
	Events []event `json:"events"`
	Now    string  `json:"now"`
}

type scenario struct {
	Name   string                           `json:"name"`
	Config config                           `json:"config"`
	VPA    *vpa_types.VerticalPodAutoscaler `json:"vpa"`
	Phases []phase                          `json:"phases"`
}

type phaseResult struct {
	Recommendation *vpa_types.RecommendedPodResources          `json:"recommendation"`
	Checkpoints    []vpa_types.VerticalPodAutoscalerCheckpoint `json:"checkpoints"`
	Rejected       int                                         `json:"rejected"`
}

type scenarioResult struct {
	Name   string        `json:"name"`
	Phases []phaseResult `json:"phases"`
	Error  string        `json:"error,omitempty"`
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func recommendationConfig(c config) logic.RecommendationConfig {
	return logic.RecommendationConfig{
		SafetyMarginFraction:       c.MarginFraction,
		PodMinCPUMillicores:        c.PodMinCPUMillicores,
		PodMinMemoryMb:             c.PodMinMemoryMb,
		TargetCPUPercentile:        c.TargetCPUPercentile,
		LowerBoundCPUPercentile:    c.LowerBoundCPUPercentile,
		UpperBoundCPUPercentile:    c.UpperBoundCPUPercentile,
		ConfidenceIntervalCPU:      time.Duration(c.ConfidenceIntervalCPUS) * time.Second,
		TargetMemoryPercentile:     c.TargetMemoryPercentile,
		LowerBoundMemoryPercentile: c.LowerBoundMemoryPercentile,
		UpperBoundMemoryPercentile: c.UpperBoundMemoryPercentile,
		ConfidenceIntervalMemory:   time.Duration(c.ConfidenceIntervalMemoryS) * time.Second,
	}
}

func initAggregations(c config) {
	model.InitializeAggregationsConfig(model.NewAggregationsConfig(
		time.Duration(c.MemoryAggregationIntervalS)*time.Second, c.MemoryAggregationCount,
		time.Duration(c.MemoryHalfLifeS)*time.Second, time.Duration(c.CPUHalfLifeS)*time.Second,
		c.OOMBumpUpRatio, c.OOMMinBumpUpBytes))
}

func globalMax(c config) corev1.ResourceList {
	out := corev1.ResourceList{}
	if c.MaxAllowedCPU != "" {
		out[corev1.ResourceCPU] = resource.MustParse(c.MaxAllowedCPU)
	}
	if c.MaxAllowedMemory != "" {
		out[corev1.ResourceMemory] = resource.MustParse(c.MaxAllowedMemory)
	}
	return out
}

// feeder mirrors the recommend command: one VPA selecting every pod of the namespace.
type feeder struct {
	cluster model.ClusterState
	vpa     *model.Vpa
	seen    map[model.ContainerID]bool
}

func newFeeder(vpaObj *vpa_types.VerticalPodAutoscaler) *feeder {
	cluster := model.NewClusterState(time.Hour)
	if err := cluster.AddOrUpdateVpa(vpaObj, labels.Everything()); err != nil {
		panic(err)
	}
	vpa := cluster.VPAs()[model.VpaID{Namespace: vpaObj.Namespace, VpaName: vpaObj.Name}]
	return &feeder{cluster: cluster, vpa: vpa, seen: map[model.ContainerID]bool{}}
}

func (f *feeder) containerID(ev event, ns string) model.ContainerID {
	podName := ev.Pod
	if podName == "" {
		podName = "pod"
	}
	podID := model.PodID{Namespace: ns, PodName: podName}
	id := model.ContainerID{PodID: podID, ContainerName: ev.Container}
	if !f.seen[id] {
		if _, ok := f.cluster.Pods()[podID]; !ok {
			f.cluster.AddOrUpdatePod(podID, labels.Set(ev.Labels), corev1.PodRunning)
		}
		if err := f.cluster.AddOrUpdateContainer(id, nil); err != nil {
			panic(err)
		}
		f.seen[id] = true
	}
	return id
}

// apply feeds one event; false when upstream discarded it.
func (f *feeder) apply(ev event, ns string) bool {
	id := f.containerID(ev, ns)
	t := mustTime(ev.Time)
	switch {
	case ev.CPUCores != nil || ev.CPUMillicores != nil:
		var usage model.ResourceAmount
		if ev.CPUMillicores != nil {
			usage = model.ResourceAmount(*ev.CPUMillicores)
		} else {
			usage = model.CPUAmountFromCores(*ev.CPUCores)
		}
		return f.cluster.AddSample(&model.ContainerUsageSampleWithKey{
			ContainerUsageSample: model.ContainerUsageSample{MeasureStart: t, Usage: usage, Resource: model.ResourceCPU},
			Container:            id,
		}) == nil
	case ev.MemoryBytes != nil:
		return f.cluster.AddSample(&model.ContainerUsageSampleWithKey{
			ContainerUsageSample: model.ContainerUsageSample{MeasureStart: t, Usage: model.MemoryAmountFromBytes(*ev.MemoryBytes), Resource: model.ResourceMemory},
			Container:            id,
		}) == nil
	case ev.OOMMemoryRequestBytes != nil:
		return f.cluster.RecordOOM(id, t, model.ResourceAmount(*ev.OOMMemoryRequestBytes)) == nil
	}
	panic("event without a value")
}

// checkpoints mirrors checkpoint_writer.buildAggregateContainerStateMap + SaveToCheckpoint, with `now`
// injected, serialised through JSON exactly as the API server would store them.
func (f *feeder) checkpoints(now time.Time) []vpa_types.VerticalPodAutoscalerCheckpoint {
	stateMap := f.vpa.AggregateStateByContainerName()
	// Same walk as upstream's buildAggregateContainerStateMap, but in sorted order (upstream's Go map
	// order is random and the order of subtractions can matter in the last ulp).
	podIDs := make([]model.PodID, 0, len(f.cluster.Pods()))
	for id := range f.cluster.Pods() {
		podIDs = append(podIDs, id)
	}
	sort.Slice(podIDs, func(i, j int) bool {
		return podIDs[i].Namespace+"/"+podIDs[i].PodName < podIDs[j].Namespace+"/"+podIDs[j].PodName
	})
	for _, podID := range podIDs {
		pod := f.cluster.Pods()[podID]
		containerNames := make([]string, 0, len(pod.Containers))
		for n := range pod.Containers {
			containerNames = append(containerNames, n)
		}
		sort.Strings(containerNames)
		for _, containerName := range containerNames {
			container := pod.Containers[containerName]
			key := f.cluster.MakeAggregateStateKey(pod, containerName)
			if f.vpa.UsesAggregation(key) {
				if agg, ok := stateMap[containerName]; ok && now.Before(container.WindowEnd) {
					agg.AggregateMemoryPeaks.SubtractSample(model.BytesFromMemoryAmount(container.GetMaxMemoryPeak()), 1.0, container.WindowEnd)
				}
			}
		}
	}
	names := make([]string, 0, len(stateMap))
	for n := range stateMap {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []vpa_types.VerticalPodAutoscalerCheckpoint{}
	for _, name := range names {
		status, err := stateMap[name].SaveToCheckpoint()
		if err != nil {
			panic(err)
		}
		status.LastUpdateTime = metav1.NewTime(now)
		cp := vpa_types.VerticalPodAutoscalerCheckpoint{
			ObjectMeta: metav1.ObjectMeta{Name: f.vpa.ID.VpaName + "-" + name, Namespace: f.vpa.ID.Namespace},
			Spec:       vpa_types.VerticalPodAutoscalerCheckpointSpec{ContainerName: name, VPAObjectName: f.vpa.ID.VpaName},
			Status:     *status,
		}
		raw, err := json.Marshal(cp)
		if err != nil {
			panic(err)
		}
		var round vpa_types.VerticalPodAutoscalerCheckpoint
		if err := json.Unmarshal(raw, &round); err != nil {
			panic(err)
		}
		out = append(out, round)
	}
	return out
}

// existingControllers answers that every pod's controller still exists (GC then only drops expired
// aggregates, like the recommend command assumes).
type existingControllers struct{}

func (existingControllers) FindTopMostWellKnownOrScalable(_ context.Context, c *controllerfetcher.ControllerKeyWithAPIVersion) (*controllerfetcher.ControllerKeyWithAPIVersion, error) {
	return c, nil
}

func runScenario(s scenario) (res scenarioResult) {
	res.Name = s.Name
	defer func() {
		if r := recover(); r != nil {
			res.Error = fmt.Sprint(r) + "\n" + string(debug.Stack())
		}
	}()
	initAggregations(s.Config)
	recommender := logic.CreatePodResourceRecommender(recommendationConfig(s.Config))
	format := logic.RecommendationFormat{HumanizeMemory: s.Config.HumanizeMemory, RoundCPUMillicores: s.Config.RoundCPUMillicores, RoundMemoryBytes: s.Config.RoundMemoryBytes}
	vpaObj := s.VPA
	if vpaObj == nil {
		vpaObj = &vpa_types.VerticalPodAutoscaler{}
	}
	if vpaObj.Name == "" {
		vpaObj.Name = "vpa"
	}
	if vpaObj.Namespace == "" {
		vpaObj.Namespace = "default"
	}
	if vpaObj.Spec.TargetRef == nil {
		vpaObj.Spec.TargetRef = &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "app"}
	}
	var previous []vpa_types.VerticalPodAutoscalerCheckpoint
	for _, ph := range s.Phases {
		f := newFeeder(vpaObj)
		for _, cp := range previous {
			state := model.NewAggregateContainerState()
			if err := state.LoadFromCheckpoint(&cp.Status); err != nil {
				panic(err)
			}
			f.vpa.ContainersInitialAggregateState[cp.Spec.ContainerName] = state
		}
		rejected := 0
		for _, ev := range ph.Events {
			if !f.apply(ev, vpaObj.Namespace) {
				rejected++
			}
		}
		now := mustTime(ph.Now)
		f.cluster.RateLimitedGarbageCollectAggregateCollectionStates(context.Background(), now, existingControllers{})
		stateMap := routines.GetContainerNameToAggregateStateMap(f.vpa)
		resources := recommender.GetRecommendedPodResources(stateMap)
		rec := logic.MapToListOfRecommendedContainerResources(resources, format)
		if s.Config.IntegerCPUPostProcessor {
			rec = (&routines.IntegerCPUPostProcessor{}).Process(vpaObj, rec)
		}
		rec = routines.NewCappingRecommendationProcessor(globalMax(s.Config)).Process(vpaObj, rec)
		cps := f.checkpoints(now)
		res.Phases = append(res.Phases, phaseResult{Recommendation: rec, Checkpoints: cps, Rejected: rejected})
		previous = cps
	}
	return res
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: vpa-oracle replay|bench < input.json")
		os.Exit(2)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	switch os.Args[1] {
	case "replay":
		var doc struct {
			Scenarios []scenario `json:"scenarios"`
		}
		if err := json.NewDecoder(in).Decode(&doc); err != nil {
			fmt.Fprintln(os.Stderr, "bad input:", err)
			os.Exit(2)
		}
		results := make([]scenarioResult, 0, len(doc.Scenarios))
		for _, s := range doc.Scenarios {
			results = append(results, runScenario(s))
		}
		if err := json.NewEncoder(out).Encode(map[string]any{"results": results}); err != nil {
			panic(err)
		}
	case "bench":
		runBench(in, out)
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}
