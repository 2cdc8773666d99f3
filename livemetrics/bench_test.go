package livemetrics

import (
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
)

// BenchmarkScrape is one /metrics scrape during a cell: every live shard
// read, the histogram built, the text written (what a Prometheus scraping
// every second costs the process that drives the load).
func BenchmarkScrape(b *testing.B) {
	e := benchExporter()
	h := e.Handler()
	b.ReportAllocs()
	for range b.N {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
		_, _ = io.Copy(io.Discard, w.Body)
	}
}

// BenchmarkRemoteWriteRequest is one remote write's work on faasbench's
// side: the series gathered, made a Remote Write 2.0 request, marshalled
// (the HTTP round trip and the compression are the library's).
func BenchmarkRemoteWriteRequest(b *testing.B) {
	e := benchExporter()
	w := &RemoteWriter{gather: registryOf(e), now: time.Now}
	b.ReportAllocs()
	for range b.N {
		req, err := w.request()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := proto.Marshal(req); err != nil {
			b.Fatal(err)
		}
	}
}

// benchExporter follows a run in its first cell, a function at 2 replicas.
func benchExporter() *Exporter {
	e := New()
	e.RunStarted("run", "bench", "local", 10, func() []observe.TimelineSample {
		return []observe.TimelineSample{{Function: "f", Ready: 2, Desired: 2, CPUCores: 0.5, MemoryMiB: 30}}
	})
	e.CellStarted(plan.Cell{ID: "f/c=8/r=1", Function: "f", Concurrency: 8}, &load.Live{})
	return e
}
