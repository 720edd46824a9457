// Oracle for test/oracles/crane-dsp.test.ts and bench/dsp/run.ts: answers JSON requests (one per stdin line)
// by calling gocrane/crane's exported DSP API (dsp.NewFFTEstimator, dsp.NewMaxValueEstimator,
// Signal.Truncate, Signal.FindPeriod, dsp.AutoCorrelation, accuracy.PredictionError). Crane's estimator
// selection (bestEstimator) and findPeriod are unexported, so the few lines that chain the exported calls
// the same way live here. The percentile-query op runs Crane's percentile predictor itself
// (percentile.NewPrediction, QueryRealtimePredictedValuesOnce) on the series a request carries.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"time"
	"unsafe"

	"github.com/gocrane/api/prediction/v1alpha1"
	"github.com/gocrane/crane/pkg/common"
	"github.com/gocrane/crane/pkg/metricnaming"
	"github.com/gocrane/crane/pkg/metricquery"
	"github.com/gocrane/crane/pkg/prediction/accuracy"
	"github.com/gocrane/crane/pkg/prediction/config"
	"github.com/gocrane/crane/pkg/prediction/dsp"
	"github.com/gocrane/crane/pkg/prediction/percentile"
	vpa "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/util"
)

type estimatorSpec struct {
	Kind   string  `json:"kind"` // "fft" | "maxValue"
	Min    int     `json:"min"`
	Max    int     `json:"max"`
	HF     float64 `json:"hf"`
	Low    float64 `json:"low"`
	Margin float64 `json:"margin"`
}

type histogramSpec struct {
	Kind            string  `json:"kind"` // "linear" | "exponential"
	MaxValue        float64 `json:"maxValue"`
	BucketSize      float64 `json:"bucketSize"`
	FirstBucketSize float64 `json:"firstBucketSize"`
	Ratio           float64 `json:"ratio"`
	Epsilon         float64 `json:"epsilon"`
}

type request struct {
	Op            string          `json:"op"` // "estimate" | "acf" | "period" | "bench" | "percentile" | "percentile-query" | "preprocess"
	Timestamps    []int64         `json:"timestamps"`
	IntervalSecs  int64           `json:"intervalSeconds"`
	Percentile    float64         `json:"percentile"`
	Margin        float64         `json:"margin"`
	Target        float64         `json:"targetUtilization"`
	MinWeight     float64         `json:"minSampleWeight"`
	Histogram     histogramSpec   `json:"histogram"`
	SampleRate    float64         `json:"sampleRate"`
	PeriodSeconds int64           `json:"periodSeconds"`
	Samples       []float64       `json:"samples"`
	Estimators    []estimatorSpec `json:"estimators"`
	Repeat        int             `json:"repeat"`
	// percentile-query: the query's series and the TSP's percentile block, as the API carries it.
	Series         []seriesSpec         `json:"series"`
	PercentileSpec *v1alpha1.Percentile `json:"percentileSpec"`
}

type seriesSpec struct {
	Labels     map[string]string `json:"labels"`
	Timestamps []int64           `json:"timestamps"`
	Samples    []float64         `json:"samples"`
}

type labelledValue struct {
	Labels map[string]string `json:"labels"`
	Value  float64           `json:"value"`
}

type estimatorResult struct {
	Name       string    `json:"name"`
	OnHistory  []float64 `json:"onHistory"`
	PE         *float64  `json:"pe"`
	OnFullData []float64 `json:"onFullData"`
}

type response struct {
	Error      string            `json:"error,omitempty"`
	NPeriods   int               `json:"nPeriods,omitempty"`
	Estimators []estimatorResult `json:"estimators,omitempty"`
	Best       int               `json:"best"`
	Forecast   []float64         `json:"forecast,omitempty"`
	ACF        []float64         `json:"acf,omitempty"`
	Periods    []int64           `json:"periods,omitempty"`
	NanosPerOp []int64           `json:"nanosPerOp,omitempty"`
	Value      *float64          `json:"value,omitempty"`
	Start      int64             `json:"start,omitempty"`
	Values     []float64         `json:"values,omitempty"`
	Series     []labelledValue   `json:"series,omitempty"`
}

// Crane's history preprocessing (pkg/prediction/dsp/preprocessing.go: fill gaps, keep whole hours, replace
// extreme outliers) is unexported, so it is reached by linkname: Crane's own code runs, not a copy. Its
// config argument is a *internalConfig, of which preProcessTimeSeries reads only historyResolution; the
// mirror below has the same layout (config.go: historyResolution, historyDuration, estimators).
//
//go:linkname cranePreProcess github.com/gocrane/crane/pkg/prediction/dsp.preProcessTimeSeries
func cranePreProcess(ts *common.TimeSeries, config unsafe.Pointer, unit time.Duration) error

type internalConfigMirror struct {
	historyResolution time.Duration
	historyDuration   time.Duration
	estimators        []dsp.Estimator
}

func preprocess(req request) response {
	if len(req.Timestamps) != len(req.Samples) {
		return response{Error: "timestamps and samples differ in length"}
	}
	ts := &common.TimeSeries{Samples: make([]common.Sample, len(req.Samples))}
	for i := range req.Samples {
		ts.Samples[i] = common.Sample{Timestamp: req.Timestamps[i], Value: req.Samples[i]}
	}
	cfg := &internalConfigMirror{historyResolution: time.Duration(req.IntervalSecs) * time.Second}
	if err := cranePreProcess(ts, unsafe.Pointer(cfg), time.Hour); err != nil {
		return response{Error: err.Error()}
	}
	out := response{Values: make([]float64, len(ts.Samples))}
	if len(ts.Samples) > 0 {
		out.Start = ts.Samples[0].Timestamp
	}
	for i, s := range ts.Samples {
		out.Values[i] = s.Value
	}
	return out
}

// percentileEstimate is Crane's percentile model (pkg/prediction/percentile aggregate_signal.go and
// prediction.go): a VPA histogram fed every sample with weight max(minSampleWeight, value), read through
// NewPercentileEstimator, WithMargin and WithTargetUtilization in that order.
func percentileEstimate(req request) (float64, error) {
	var opts vpa.HistogramOptions
	var err error
	if req.Histogram.Kind == "exponential" {
		opts, err = vpa.NewExponentialHistogramOptions(req.Histogram.MaxValue, req.Histogram.FirstBucketSize, req.Histogram.Ratio, req.Histogram.Epsilon)
	} else {
		opts, err = vpa.NewLinearHistogramOptions(req.Histogram.MaxValue, req.Histogram.BucketSize, req.Histogram.Epsilon)
	}
	if err != nil {
		return 0, err
	}
	h := vpa.NewHistogram(opts)
	for _, v := range req.Samples {
		h.AddSample(v, math.Max(req.MinWeight, v), time.Time{})
	}
	est := percentile.NewPercentileEstimator(req.Percentile)
	est = percentile.WithMargin(req.Margin, est)
	est = percentile.WithTargetUtilization(req.Target, est)
	return est.GetEstimation(h), nil
}

// fixedHistory is a history provider that answers every query with the request's series (the percentile
// predictor asks for [now-historyLength, now]; the caller sends history that already lies in it).
type fixedHistory struct{ series []*common.TimeSeries }

func (f fixedHistory) QueryTimeSeries(metricnaming.MetricNamer, time.Time, time.Time, time.Duration) ([]*common.TimeSeries, error) {
	return f.series, nil
}

func (f fixedHistory) QueryLatestTimeSeries(metricnaming.MetricNamer) ([]*common.TimeSeries, error) {
	return nil, nil
}

// percentileQuery runs Crane's own percentile predictor on a query's series: QueryRealtimePredictedValuesOnce
// on a query no caller registered goes through makeInternalConfig and process (pkg/prediction/percentile
// prediction.go), which builds one histogram over all series when the block says aggregated, one per label
// set otherwise, and estimates each.
func percentileQuery(req request) response {
	if req.PercentileSpec == nil {
		return response{Error: "percentileSpec is required"}
	}
	var series []*common.TimeSeries
	for _, s := range req.Series {
		ts := &common.TimeSeries{}
		for k, v := range s.Labels {
			ts.Labels = append(ts.Labels, common.Label{Name: k, Value: v})
		}
		sort.Slice(ts.Labels, func(a, b int) bool { return ts.Labels[a].Name < ts.Labels[b].Name })
		for i, v := range s.Samples {
			ts.Samples = append(ts.Samples, common.Sample{Timestamp: s.Timestamps[i], Value: v})
		}
		series = append(series, ts)
	}
	h := fixedHistory{series: series}
	p := percentile.NewPrediction(h, h)
	namer := &metricnaming.GeneralMetricNamer{
		CallerName: "oracle",
		Metric:     &metricquery.Metric{Type: metricquery.PromQLMetricType, MetricName: "oracle", Prom: &metricquery.PromNamerInfo{QueryExpr: "oracle"}},
	}
	out, err := p.QueryRealtimePredictedValuesOnce(context.Background(), namer, config.Config{Percentile: req.PercentileSpec})
	if err != nil {
		return response{Error: err.Error()}
	}
	resp := response{Series: []labelledValue{}}
	for _, ts := range out {
		lv := labelledValue{Labels: map[string]string{}}
		for _, l := range ts.Labels {
			lv.Labels[l.Name] = l.Value
		}
		if len(ts.Samples) > 0 {
			lv.Value = ts.Samples[len(ts.Samples)-1].Value
		}
		resp.Series = append(resp.Series, lv)
	}
	return resp
}

func build(specs []estimatorSpec) []dsp.Estimator {
	if len(specs) == 0 {
		// Crane's defaultEstimators (pkg/prediction/dsp/config.go): 8 FFT estimators.
		for _, margin := range []float64{0.01, 0.1, 0.15, 0.2} {
			specs = append(specs, estimatorSpec{Kind: "fft", Min: 3, Max: 100, Low: 1.0, Margin: margin})
		}
		for _, margin := range []float64{0.01, 0.1, 0.15, 0.2} {
			specs = append(specs, estimatorSpec{Kind: "fft", Min: 50, Max: 100, Low: 0.05, Margin: margin})
		}
	}
	out := make([]dsp.Estimator, 0, len(specs))
	for _, s := range specs {
		if s.Kind == "maxValue" {
			out = append(out, dsp.NewMaxValueEstimator(s.Margin))
		} else {
			out = append(out, dsp.NewFFTEstimator(s.Min, s.Max, s.HF, s.Low, s.Margin))
		}
	}
	return out
}

// selectBest mirrors crane's bestEstimator: backtest on the last whole period, smallest error, first wins ties.
func selectBest(ests []dsp.Estimator, sig *dsp.Signal, nPeriods int, period time.Duration, keep bool) (int, []estimatorResult) {
	per := len(sig.Samples) / nPeriods
	history := &dsp.Signal{SampleRate: sig.SampleRate, Samples: sig.Samples[:(nPeriods-1)*per]}
	actual := sig.Samples[(nPeriods-1)*per:]
	best, minPE := -1, math.MaxFloat64
	var results []estimatorResult
	for i, e := range ests {
		est := e.GetEstimation(history, period)
		r := estimatorResult{Name: e.String()}
		if est != nil {
			pe, err := accuracy.PredictionError(actual, est.Samples)
			if err == nil {
				r.PE = &pe
				if pe < minPE {
					minPE, best = pe, i
				}
			}
			if keep {
				r.OnHistory = est.Samples
			}
		}
		results = append(results, r)
	}
	return best, results
}

// cranePipeline is one Crane forecast of a preprocessed series: findPeriod, Truncate, bestEstimator, estimate.
func cranePipeline(sig *dsp.Signal) []float64 {
	var period time.Duration = -1
	if w, m := sig.Truncate(dsp.Week); m > 1 {
		period = w.FindPeriod()
	} else if d, m := sig.Truncate(dsp.Day); m > 1 {
		period = d.FindPeriod()
	}
	if period != dsp.Day && period != dsp.Week {
		return nil
	}
	s, n := sig.Truncate(period)
	if n < 2 {
		return nil
	}
	ests := build(nil)
	best, _ := selectBest(ests, s, n, period, false)
	return ests[best].GetEstimation(s, period).Samples
}

func handle(req request) response {
	sig := &dsp.Signal{SampleRate: req.SampleRate, Samples: req.Samples}
	period := time.Duration(req.PeriodSeconds) * time.Second
	switch req.Op {
	case "estimate":
		s, n := sig.Truncate(period)
		if n < 2 {
			return response{Error: fmt.Sprintf("fewer than 2 periods (%d)", n)}
		}
		ests := build(req.Estimators)
		best, results := selectBest(ests, s, n, period, true)
		for i, e := range ests {
			results[i].OnFullData = e.GetEstimation(s, period).Samples
		}
		resp := response{NPeriods: n, Estimators: results, Best: best}
		if best >= 0 {
			resp.Forecast = ests[best].GetEstimation(s, period).Samples
		}
		return resp
	case "percentile":
		v, err := percentileEstimate(req)
		if err != nil {
			return response{Error: err.Error()}
		}
		return response{Value: &v}
	case "percentile-query":
		return percentileQuery(req)
	case "preprocess":
		return preprocess(req)
	case "acf":
		return response{ACF: dsp.AutoCorrelation(req.Samples)}
	case "period":
		var periods []int64
		for i := 0; i < max(1, req.Repeat); i++ {
			p := sig.FindPeriod()
			if p < 0 {
				periods = append(periods, -1)
			} else {
				periods = append(periods, int64(p/time.Second))
			}
		}
		return response{Periods: periods}
	case "bench":
		var nanos []int64
		for i := 0; i < max(1, req.Repeat); i++ {
			start := time.Now()
			cranePipeline(sig)
			nanos = append(nanos, time.Since(start).Nanoseconds())
		}
		sort.Slice(nanos, func(a, b int) bool { return nanos[a] < nanos[b] })
		return response{NanosPerOp: nanos}
	}
	return response{Error: "unknown op " + req.Op}
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	enc := json.NewEncoder(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			var resp response
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				resp = response{Error: jerr.Error()}
			} else {
				resp = handle(req)
			}
			if eerr := enc.Encode(resp); eerr != nil {
				fmt.Fprintln(os.Stderr, eerr)
				os.Exit(1)
			}
		}
		if err != nil {
			return
		}
	}
}
