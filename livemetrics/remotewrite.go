package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/exp/api/remote"
	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// DefaultRemoteEvery is how often the remote writer sends when not told.
const DefaultRemoteEvery = 5 * time.Second

// RemoteWriter sends the exporter's series to a Prometheus remote-write
// endpoint (Remote Write 2.0, through client_golang's exp/api/remote) on
// its own goroutine, every Every and once more at the end: counters and
// gauges as samples, the cell's latency as a native histogram. It never
// slows or fails the run: a write that fails is said once (and when writes
// succeed again), and counted.
type RemoteWriter struct {
	shown  string // the URL without its credentials, for messages
	every  time.Duration
	gather prometheus.Gatherer
	api    *remote.API
	log    io.Writer
	now    func() time.Time

	mu      sync.Mutex
	writes  int
	failed  int
	failing bool
	lastErr error
	stopc   chan struct{}
	wg      sync.WaitGroup
}

// RemoteURL checks a remote-write URL (http or https with a host); the
// error names the flag. It returns the URL without credentials, to show.
func RemoteURL(raw string) (shown string, err error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--remote-write %q: want an http(s) URL of a remote-write endpoint, such as http://127.0.0.1:9090/api/v1/write", redactURL(raw))
	}
	return redactURL(raw), nil
}

// redactURL is raw with any password replaced.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		if err != nil {
			return "(an unparsable URL)"
		}
		return raw
	}
	return u.Redacted()
}

// RemoteWrite starts writing e's series to rawURL every every (0: the
// default); messages go to log. The first write is made at once, so an
// endpoint that cannot be reached is said before the load begins.
func (e *Exporter) RemoteWrite(rawURL string, every time.Duration, log io.Writer) (*RemoteWriter, error) {
	shown, err := RemoteURL(rawURL)
	if err != nil {
		return nil, err
	}
	if every <= 0 {
		every = DefaultRemoteEvery
	}
	api, err := remote.NewAPI(rawURL, remote.WithAPIPath(""), remote.WithAPIHTTPClient(&http.Client{Timeout: every}),
		remote.WithAPIBackoff(remote.BackoffConfig{Min: 200 * time.Millisecond, Max: time.Second, MaxRetries: 2}))
	if err != nil {
		return nil, fmt.Errorf("--remote-write %s: %w", shown, err)
	}
	w := &RemoteWriter{shown: shown, every: every, gather: registryOf(e), api: api, log: log, now: time.Now, stopc: make(chan struct{})}
	w.write()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-w.stopc:
				return
			case <-t.C:
				w.write()
			}
		}
	}()
	return w, nil
}

// write sends the series once, and says when writing fails or recovers.
func (w *RemoteWriter) write() {
	ctx, cancel := context.WithTimeout(context.Background(), w.every)
	defer cancel()
	req, err := w.request()
	if err == nil {
		_, err = w.api.Write(ctx, remote.WriteV2MessageType, req)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	switch {
	case err != nil:
		w.failed++
		w.lastErr = errors.New(scrub(err, w.shown))
		if !w.failing {
			fmt.Fprintf(w.log, "remote write: WARNING: %s: %v (the run goes on; it tries again every %v, and the run directory keeps every figure)\n", w.shown, w.lastErr, w.every)
		}
		w.failing = true
	case w.failing:
		fmt.Fprintf(w.log, "remote write: %s takes the writes again\n", w.shown)
		w.failing = false
	}
}

// scrub keeps the URL's credentials out of an error from the HTTP client.
func scrub(err error, shown string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Sprintf("%s %s: %v", ue.Op, shown, ue.Err)
	}
	return err.Error()
}

// Stop sends the final figures and stops; it returns how many writes
// failed of how many, and the last error.
func (w *RemoteWriter) Stop() (writes, failed int, last error) {
	close(w.stopc)
	w.wg.Wait()
	w.write()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes, w.failed, w.lastErr
}

// registryOf is a registry of e's series alone.
func registryOf(e *Exporter) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{e})
	return reg
}

// request is the gathered series as a Remote Write 2.0 request.
func (w *RemoteWriter) request() (*writev2.Request, error) {
	mfs, err := w.gather.Gather()
	if err != nil {
		return nil, fmt.Errorf("gathering the series: %w", err)
	}
	return toV2(mfs, w.now().UnixMilli()), nil
}

// toV2 converts gathered families to a Remote Write 2.0 request at ts
// (ms): counters and gauges as samples, histograms as native histograms.
func toV2(mfs []*dto.MetricFamily, ts int64) *writev2.Request {
	st := writev2.NewSymbolTable()
	var series []*writev2.TimeSeries
	for _, mf := range mfs {
		help := st.Symbolize(mf.GetHelp())
		for _, m := range mf.Metric {
			refs := labelRefs(&st, mf.GetName(), m.Label)
			ts2 := &writev2.TimeSeries{LabelsRefs: refs, Metadata: &writev2.Metadata{HelpRef: help}}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				ts2.Metadata.Type = writev2.Metadata_METRIC_TYPE_COUNTER
				ts2.Samples = []*writev2.Sample{{Value: m.GetCounter().GetValue(), Timestamp: ts}}
			case dto.MetricType_GAUGE:
				ts2.Metadata.Type = writev2.Metadata_METRIC_TYPE_GAUGE
				ts2.Samples = []*writev2.Sample{{Value: m.GetGauge().GetValue(), Timestamp: ts}}
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				if h.Schema == nil {
					continue // only native histograms are written
				}
				ts2.Metadata.Type = writev2.Metadata_METRIC_TYPE_HISTOGRAM
				ts2.Histograms = []*writev2.Histogram{nativeV2(h, ts)}
			default:
				continue
			}
			series = append(series, ts2)
		}
	}
	return &writev2.Request{Symbols: st.Symbols(), Timeseries: series}
}

// labelRefs are the series' labels (with __name__), sorted by name, as
// symbol references.
func labelRefs(st *writev2.SymbolsTable, name string, labels []*dto.LabelPair) []uint32 {
	pairs := make([][2]string, 0, len(labels)+1)
	pairs = append(pairs, [2]string{"__name__", name})
	for _, l := range labels {
		pairs = append(pairs, [2]string{l.GetName(), l.GetValue()})
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	refs := make([]uint32, 0, 2*len(pairs))
	for _, p := range pairs {
		refs = append(refs, st.Symbolize(p[0]), st.Symbolize(p[1]))
	}
	return refs
}

// nativeV2 is a native histogram in Remote Write 2.0's form.
func nativeV2(h *dto.Histogram, ts int64) *writev2.Histogram {
	out := &writev2.Histogram{
		Count:          &writev2.Histogram_CountInt{CountInt: h.GetSampleCount()},
		Sum:            h.GetSampleSum(),
		Schema:         h.GetSchema(),
		ZeroThreshold:  h.GetZeroThreshold(),
		ZeroCount:      &writev2.Histogram_ZeroCountInt{ZeroCountInt: h.GetZeroCount()},
		PositiveDeltas: h.PositiveDelta,
		Timestamp:      ts,
	}
	for _, s := range h.PositiveSpan {
		if s.GetLength() == 0 {
			continue // the empty span that only marks a histogram native
		}
		out.PositiveSpans = append(out.PositiveSpans, &writev2.BucketSpan{Offset: s.GetOffset(), Length: s.GetLength()})
	}
	return out
}
