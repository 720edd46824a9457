// Reference server for `npm run bench -- adapter`: sigs.k8s.io/custom-metrics-apiserver (the library every
// Go adapter, including Crane's, is built on) serving crane_pod_cpu_usage from in-memory data, loaded from
// the same JSON fixture our adapter serves. The provider does the same work as ours per request: find the
// EHPA by uid, filter the namespace's pods by label selector and availability, take the largest forecast
// sample in [now, now+window] (float32 parse), split it over the pods. No cluster: the informer factory is
// built on a kubeconfig that is never dialled, authentication is front-proxy certificates only, and
// authorization is the built-in always-allow for system:masters (the bench sends that group, to ours too).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-base/logs"
	"k8s.io/klog/v2"
	"k8s.io/metrics/pkg/apis/custom_metrics"
	"k8s.io/metrics/pkg/apis/external_metrics"
	basecmd "sigs.k8s.io/custom-metrics-apiserver/pkg/cmd"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

type fixturePod struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Labels    map[string]string `json:"labels"`
	Available bool              `json:"available"`
}

type fixtureEhpa struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
	Window    int64  `json:"windowSeconds"`
	Samples   []struct {
		Timestamp int64  `json:"timestamp"`
		Value     string `json:"value"`
	} `json:"samples"`
}

type fixture struct {
	Ehpas []fixtureEhpa `json:"ehpas"`
	Pods  []fixturePod  `json:"pods"`
}

const uidLabel = "autoscaling.crane.io/effective-hpa-uid"
const metricName = "crane_pod_cpu_usage"

type benchProvider struct {
	ehpasByNs map[string][]*fixtureEhpa
	podsByNs  map[string][]*fixturePod
}

func (p *benchProvider) GetMetricByName(_ context.Context, name types.NamespacedName, info provider.CustomMetricInfo, _ labels.Selector) (*custom_metrics.MetricValue, error) {
	return nil, provider.NewMetricNotFoundForError(info.GroupResource, info.Metric, name.Name)
}

func (p *benchProvider) GetMetricBySelector(_ context.Context, namespace string, selector labels.Selector, info provider.CustomMetricInfo, metricSelector labels.Selector) (*custom_metrics.MetricValueList, error) {
	if info.GroupResource != (schema.GroupResource{Resource: "pods"}) || info.Metric != metricName {
		return nil, provider.NewMetricNotFoundError(info.GroupResource, info.Metric)
	}
	uid, ok := metricSelector.RequiresExactMatch(uidLabel)
	if !ok {
		return nil, fmt.Errorf("metric %s needs metricLabelSelector %s", metricName, uidLabel)
	}
	var ehpa *fixtureEhpa
	for _, e := range p.ehpasByNs[namespace] {
		if e.UID == uid {
			ehpa = e
		}
	}
	if ehpa == nil {
		return nil, provider.NewMetricNotFoundError(info.GroupResource, info.Metric)
	}
	var available []*fixturePod
	for _, pod := range p.podsByNs[namespace] {
		if selector.Matches(labels.Set(pod.Labels)) && pod.Available {
			available = append(available, pod)
		}
	}
	if len(available) == 0 {
		return nil, fmt.Errorf("failed to get available pods")
	}
	now := time.Now()
	start, end := now.Unix(), now.Unix()+ehpa.Window
	largest, valid := 0.0, false
	for _, s := range ehpa.Samples {
		if s.Timestamp < start || s.Timestamp > end {
			continue
		}
		v, err := strconv.ParseFloat(s.Value, 32)
		if err != nil {
			continue
		}
		if v > largest {
			largest, valid = v, true
		}
	}
	if !valid {
		return nil, fmt.Errorf("TimeSeries is outdated")
	}
	milli := int64(math.Round(largest * 1000 / float64(len(available))))
	window := int64(60)
	sel, _ := metav1.ParseToLabelSelector(metricSelector.String())
	items := make([]custom_metrics.MetricValue, 0, len(available))
	for _, pod := range available {
		items = append(items, custom_metrics.MetricValue{
			DescribedObject: custom_metrics.ObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, Namespace: namespace},
			Metric:          custom_metrics.MetricIdentifier{Name: metricName, Selector: sel},
			Timestamp:       metav1.Time{Time: now},
			WindowSeconds:   &window,
			Value:           *resource.NewMilliQuantity(milli, resource.DecimalSI),
		})
	}
	return &custom_metrics.MetricValueList{Items: items}, nil
}

func (p *benchProvider) ListAllMetrics() []provider.CustomMetricInfo {
	return []provider.CustomMetricInfo{{GroupResource: schema.GroupResource{Resource: "pods"}, Metric: metricName, Namespaced: true}}
}

func (p *benchProvider) GetExternalMetric(_ context.Context, _ string, _ labels.Selector, info provider.ExternalMetricInfo) (*external_metrics.ExternalMetricValueList, error) {
	return nil, provider.NewMetricNotFoundError(schema.GroupResource{}, info.Metric)
}

func (p *benchProvider) ListAllExternalMetrics() []provider.ExternalMetricInfo { return nil }

func main() {
	logs.InitLogs()
	defer logs.FlushLogs()
	cmd := &basecmd.AdapterBase{Name: "bench-reference-adapter"}
	var fixturePath string
	cmd.Flags().StringVar(&fixturePath, "fixture", "", "JSON fixture written by bench/adapter/run.ts")
	cmd.Flags().AddGoFlagSet(flag.CommandLine)
	cmd.Authentication.RemoteKubeConfigFileOptional = true
	cmd.Authorization.RemoteKubeConfigFileOptional = true
	if err := cmd.Flags().Parse(os.Args); err != nil {
		klog.Fatalf("unable to parse flags: %v", err)
	}
	raw, err := os.ReadFile(fixturePath)
	if err != nil {
		klog.Fatalf("read fixture: %v", err)
	}
	var fx fixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		klog.Fatalf("parse fixture: %v", err)
	}
	p := &benchProvider{ehpasByNs: map[string][]*fixtureEhpa{}, podsByNs: map[string][]*fixturePod{}}
	for i := range fx.Ehpas {
		e := &fx.Ehpas[i]
		p.ehpasByNs[e.Namespace] = append(p.ehpasByNs[e.Namespace], e)
	}
	for i := range fx.Pods {
		pod := &fx.Pods[i]
		p.podsByNs[pod.Namespace] = append(p.podsByNs[pod.Namespace], pod)
	}
	cmd.WithCustomMetrics(p)
	cmd.WithExternalMetrics(p)
	if err := cmd.Run(context.Background()); err != nil {
		klog.Fatalf("unable to run custom metrics adapter: %v", err)
	}
}
