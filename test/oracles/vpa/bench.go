package main

// Benchmark mode: the same synthetic workload bench/vpa/run.ts runs through our core, here through the
// upstream model (clusterState.AddSample, routines.GetContainerNameToAggregateStateMap +
// logic.GetRecommendedPodResources + MapToListOfRecommendedContainerResources).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	vpa_types "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/logic"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/model"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/routines"
)

type benchParams struct {
	Containers          int `json:"containers"`
	SamplesPerContainer int `json:"samplesPerContainer"`
	RecommendRounds     int `json:"recommendRounds"`
	Repeats             int `json:"repeats"`
	MemoryContainers    int `json:"memoryContainers"`
	MemorySamples       int `json:"memorySamples"`
}

var benchT0 = time.Date(2024, 3, 10, 13, 37, 0, 0, time.UTC)

// Same formulas as bench/vpa/workload.ts.
func cpuMilli(i, k int) model.ResourceAmount {
	return model.ResourceAmount(50 + (i*7919+k*31)%400 + 25*(i/1440))
}

func memBytes(i, k int) model.ResourceAmount {
	return model.ResourceAmount(300*1024*1024 + ((i*104729+k*7)%97)*4*1024*1024)
}

func podName(k int) string { return fmt.Sprintf("p-%d", k) }

func buildCluster(containers int) (model.ClusterState, []model.ContainerID) {
	cluster := model.NewClusterState(time.Hour)
	ids := make([]model.ContainerID, containers)
	for k := 0; k < containers; k++ {
		podID := model.PodID{Namespace: "default", PodName: podName(k)}
		cluster.AddOrUpdatePod(podID, labels.Set{"pod": podName(k)}, corev1.PodRunning)
		ids[k] = model.ContainerID{PodID: podID, ContainerName: "app"}
		if err := cluster.AddOrUpdateContainer(ids[k], nil); err != nil {
			panic(err)
		}
	}
	return cluster, ids
}

func feed(cluster model.ClusterState, ids []model.ContainerID, samples int) int {
	n := 0
	for i := 0; i < samples; i++ {
		t := benchT0.Add(time.Duration(i) * time.Minute)
		for k, id := range ids {
			s := model.ContainerUsageSampleWithKey{ContainerUsageSample: model.ContainerUsageSample{MeasureStart: t, Usage: cpuMilli(i, k), Resource: model.ResourceCPU}, Container: id}
			if cluster.AddSample(&s) == nil {
				n++
			}
			s = model.ContainerUsageSampleWithKey{ContainerUsageSample: model.ContainerUsageSample{MeasureStart: t, Usage: memBytes(i, k), Resource: model.ResourceMemory}, Container: id}
			if cluster.AddSample(&s) == nil {
				n++
			}
		}
	}
	return n
}

func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

func runBench(in *bufio.Reader, out *bufio.Writer) {
	var p benchParams
	if err := json.NewDecoder(in).Decode(&p); err != nil {
		panic(err)
	}
	model.InitializeAggregationsConfig(model.NewAggregationsConfig(24*time.Hour, 8, 24*time.Hour, 24*time.Hour, 1.2, 100*1024*1024))
	cfg := logic.RecommendationConfig{
		SafetyMarginFraction: 0.15, PodMinCPUMillicores: 25, PodMinMemoryMb: 250,
		TargetCPUPercentile: 0.9, LowerBoundCPUPercentile: 0.5, UpperBoundCPUPercentile: 0.95, ConfidenceIntervalCPU: 24 * time.Hour,
		TargetMemoryPercentile: 0.9, LowerBoundMemoryPercentile: 0.5, UpperBoundMemoryPercentile: 0.95, ConfidenceIntervalMemory: 24 * time.Hour,
	}
	recommender := logic.CreatePodResourceRecommender(cfg)
	format := logic.RecommendationFormat{RoundCPUMillicores: 1, RoundMemoryBytes: 1}

	var addRates, recRates []float64
	var checksum int64
	result := map[string]any{"goVersion": runtime.Version()}
	for r := 0; r < p.Repeats && p.Containers > 0; r++ {
		cluster, ids := buildCluster(p.Containers)
		start := time.Now()
		n := feed(cluster, ids, p.SamplesPerContainer)
		addRates = append(addRates, float64(n)/time.Since(start).Seconds())

		vpas := make([]*model.Vpa, 0, p.Containers)
		for k := 0; k < p.Containers; k++ {
			obj := &vpa_types.VerticalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "vpa-" + podName(k), Namespace: "default"}}
			if err := cluster.AddOrUpdateVpa(obj, labels.SelectorFromSet(labels.Set{"pod": podName(k)})); err != nil {
				panic(err)
			}
			vpas = append(vpas, cluster.VPAs()[model.VpaID{Namespace: "default", VpaName: obj.Name}])
		}
		start = time.Now()
		recs := 0
		for round := 0; round < p.RecommendRounds; round++ {
			for _, vpa := range vpas {
				resources := recommender.GetRecommendedPodResources(routines.GetContainerNameToAggregateStateMap(vpa))
				list := logic.MapToListOfRecommendedContainerResources(resources, format)
				checksum += list.ContainerRecommendations[0].Target.Cpu().MilliValue()
				recs++
			}
		}
		recRates = append(recRates, float64(recs)/time.Since(start).Seconds())
	}

	if len(addRates) > 0 {
		result["addSamplesPerSec"] = median(addRates)
		result["recommendationsPerSec"] = median(recRates)
		result["checksum"] = checksum
	}
	if p.MemoryContainers > 0 {
		result["bytesPerContainer"], result["heapBytes"] = measureMemory(p)
	}
	if err := json.NewEncoder(out).Encode(result); err != nil {
		panic(err)
	}
}

// measureMemory: heap growth for MemoryContainers tracked containers with history.
func measureMemory(p benchParams) (float64, uint64) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cluster, ids := buildCluster(p.MemoryContainers)
	feed(cluster, ids, p.MemorySamples)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(cluster)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(p.MemoryContainers), after.HeapAlloc - before.HeapAlloc
}
