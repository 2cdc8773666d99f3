package runner

import (
	"net/http"
	"sync"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// queryPlatform is the fake platform passing one function's query in a
// header (as Nuclio's shell runtime takes X-Nuclio-Arguments); it records
// each request's header and query.
type queryPlatform struct {
	*fakePlatform
	mu   sync.Mutex
	seen map[string]int // "header|query" -> requests
}

func (p *queryPlatform) QueryHeader(name, query string) (string, string) {
	if name == "carried" {
		return "X-Test-Arguments", "<" + query + ">"
	}
	return "", ""
}

// A cell's query string is sent in the header the platform names for the function (the URL keeps it);
// a function whose platform names none gets no such header, and a path without a query none either.
func TestQueryCarrierGetsTheCellsQueryInItsHeader(t *testing.T) {
	var qp *queryPlatform
	o := fakeOptions(t, new(*fakePlatform))
	withPlatform(t, &o, func() platform.Platform {
		qp = &queryPlatform{seen: map[string]int{}}
		qp.fakePlatform = pongPlatform(func(r *http.Request) {
			qp.mu.Lock()
			qp.seen[r.URL.Path+"|"+r.Header.Get("X-Test-Arguments")+"|"+r.URL.RawQuery]++
			qp.mu.Unlock()
		})
		return qp
	})
	r := runSpec(t, `version: 1
name: query
kind: baseline
platform: {name: fake}
functions: [{name: carried, workload: hello, language: python}, {name: plain, workload: hello, language: python}]
vary: {path: ["/?variant=np&n=2", "/"]}
baseline: {via: [gateway]}
load: {concurrency: [1], requests: 4, warmup: 0s}
repetitions: 1
`, o)
	for _, c := range r.Summary().Cells {
		if c.Requests.Total != 4 || c.Requests.Failed != 0 {
			t.Errorf("cell %s: %d requests, %d failed: want 4 answered", c.ID, c.Requests.Total, c.Requests.Failed)
		}
	}
	qp.mu.Lock()
	defer qp.mu.Unlock()
	want := map[string]bool{
		"/function/carried/|<variant=np&n=2>|variant=np&n=2": true,
		"/function/carried/||":                               true,
		"/function/plain/||variant=np&n=2":                   true,
		"/function/plain/||":                                 true,
	}
	for k, n := range qp.seen {
		if !want[k] {
			t.Errorf("%d requests as path|header|query %q: not one the cells send", n, k)
		}
	}
	for k := range want {
		if qp.seen[k] < 4 {
			t.Errorf("path|header|query %q: %d requests, want the cell's 4 (seen %v)", k, qp.seen[k], qp.seen)
		}
	}
}
