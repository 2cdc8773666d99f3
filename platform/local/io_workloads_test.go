package local

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/dataset"
	"github.com/faasbench/faasbench/internal/testdb"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/upstream"
)

type call struct {
	code   int
	header http.Header
	body   []byte
	took   time.Duration
}

func do(t *testing.T, method, url string, body []byte) call {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return call{resp.StatusCode, resp.Header, b, time.Since(start)}
}

func deploy(t *testing.T, p *Platform, fn platform.Function) string {
	t.Helper()
	if fn.Replicas == 0 {
		fn.Replicas = 1
	}
	if err := p.Deploy(context.Background(), fn); err != nil {
		t.Fatalf("deploy %s: %v", fn.Name, err)
	}
	url, err := p.Endpoint(context.Background(), fn.Name)
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// The image workload runs the real ImageMagick (Debian's, through Magick++
// in C++ and Wand in Python), on a PNG like seed 000's.
func TestImageWorkloadRunsRealImageMagick(t *testing.T) {
	p, _ := startTestPlatform(t)
	paths, err := dataset.Images(context.Background(), t.TempDir(), dataset.ImageSpec{Count: 1, Seed: 1, Large: 120})
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"cpp", "python"} {
		url := deploy(t, p, platform.Function{Name: "image-" + lang, Workload: "image", Language: lang})
		v := do(t, "GET", url+"?version=1", nil)
		if v.code != 200 || !strings.HasPrefix(string(v.body), "ImageMagick 6.") {
			t.Fatalf("%s version: %d %q: not the real ImageMagick", lang, v.code, v.body)
		}
		for _, variant := range []string{"", "?variant=np"} {
			r := do(t, "POST", url+variant, in)
			if r.code != 200 {
				t.Fatalf("%s%s: %d %s %s", lang, variant, r.code, r.header.Get("X-Fb-Error"), r.body)
			}
			img, err := png.Decode(bytes.NewReader(r.body))
			if err != nil {
				t.Fatalf("%s%s: reply is not a PNG: %v", lang, variant, err)
			}
			// wave adds 2 × amplitude (10) rows; np changes nothing.
			wantH := 140
			if variant != "" {
				wantH = 120
				if r.took < time.Second {
					t.Errorf("%s np variant answered in %v, before its 1 s sleep", lang, r.took)
				}
			}
			if b := img.Bounds(); b.Dx() != 120 || b.Dy() != wantH {
				t.Errorf("%s%s: %v, want 120×%d", lang, variant, b, wantH)
			}
			if variant == "" && bytes.Equal(r.body, in) {
				t.Errorf("%s: image came back unchanged", lang)
			}
		}
		if r := do(t, "POST", url, []byte("not a png")); r.code != 500 {
			t.Errorf("%s: garbage body answered %d", lang, r.code)
		}
	}
}

// fetch waits on a real upstream HTTP server.
func TestFetchWorkloadCallsTheUpstream(t *testing.T) {
	p, _ := startTestPlatform(t)
	up := httptest.NewServer(&upstream.Server{})
	defer up.Close()
	for _, lang := range []string{"python", "node", "java"} {
		url := deploy(t, p, platform.Function{Name: "fetch-" + lang, Workload: "fetch", Language: lang,
			Env: map[string]string{"FB_UPSTREAM_URL": up.URL}})
		r := do(t, "GET", url+"?size=100000", nil)
		if r.code != 200 || string(r.body) != "fetched 100000 bytes" || r.header.Get("X-Fb-Cold") != "1" {
			t.Fatalf("%s: %d %q cold=%q %s", lang, r.code, r.body, r.header.Get("X-Fb-Cold"), r.header.Get("X-Fb-Error"))
		}
		r = do(t, "GET", url+"?size=10&delay=200ms", nil)
		if r.code != 200 || string(r.body) != "fetched 10 bytes" || r.took < 200*time.Millisecond || r.header.Get("X-Fb-Cold") != "0" {
			t.Errorf("%s delay: %d %q in %v", lang, r.code, r.body, r.took)
		}
		if r := do(t, "GET", url+"?size=10&delay=soon", nil); r.code != 500 || r.header.Get("X-Fb-Error") == "" {
			t.Errorf("%s bad delay: %d %q", lang, r.code, r.header.Get("X-Fb-Error"))
		}
		// seed 003's http-workload answers with the page itself: the response size follows ?size
		if r := do(t, "GET", url+"?size=4&reply=body", nil); r.code != 200 || string(r.body) != "abcd" {
			t.Errorf("%s reply=body: %d %q %s", lang, r.code, r.body, r.header.Get("X-Fb-Error"))
		}
		if r := do(t, "GET", url+"?size=65536&reply=body", nil); r.code != 200 || len(r.body) != 65536 {
			t.Errorf("%s reply=body of 64 KiB: %d, %d bytes", lang, r.code, len(r.body))
		}
		if r := do(t, "GET", url+"?size=4&reply=json", nil); r.code != 500 || !strings.Contains(r.header.Get("X-Fb-Error"), "reply") {
			t.Errorf("%s bad reply: %d %q", lang, r.code, r.header.Get("X-Fb-Error"))
		}
	}
	noEnv := deploy(t, p, platform.Function{Name: "fetch-noenv", Workload: "fetch", Language: "python"})
	if r := do(t, "GET", noEnv, nil); r.code != 500 || !strings.Contains(r.header.Get("X-Fb-Error"), "FB_UPSTREAM_URL") {
		t.Errorf("no upstream: %d %q", r.code, r.header.Get("X-Fb-Error"))
	}
}

// query runs SELECT SLEEP on a real MariaDB started by scripts/mariadb.sh.
func TestQueryWorkloadOnMariaDB(t *testing.T) {
	db := testdb.Start(t)
	p, _ := startTestPlatform(t)
	for _, lang := range []string{"python", "node"} {
		url := deploy(t, p, platform.Function{Name: "query-" + lang, Workload: "query", Language: lang, Env: db})
		r := do(t, "GET", url+"?delay=0.3", nil)
		if r.code != 200 || string(r.body) != "slept 0.3" || r.took < 300*time.Millisecond {
			t.Fatalf("%s: %d %q in %v (%s)", lang, r.code, r.body, r.took, r.header.Get("X-Fb-Error"))
		}
		if r := do(t, "GET", url+"?delay=-1", nil); r.code != 500 {
			t.Errorf("%s: delay -1 answered %d", lang, r.code)
		}
		bad := map[string]string{}
		for k, v := range db {
			bad[k] = v
		}
		bad["FB_DB_PASSWORD"] = "wrong"
		burl := deploy(t, p, platform.Function{Name: "query-bad-" + lang, Workload: "query", Language: lang, Env: bad})
		if r := do(t, "GET", burl, nil); r.code != 500 || !strings.Contains(strings.ToLower(r.header.Get("X-Fb-Error")), "denied") {
			t.Errorf("%s wrong password: %d %q", lang, r.code, r.header.Get("X-Fb-Error"))
		}
	}
}

// wordcount reads shared storage as a directory and over HTTP; mapreduce
// coordinates mappers and reducers through the gateway, re-invoking
// failed tasks.
func TestWordcountAndMapreduce(t *testing.T) {
	dir := sharedDir(t)
	const docs = 12
	if _, err := dataset.Corpus(context.Background(), dir, dataset.CorpusSpec{Docs: docs, Words: 500, Vocabulary: 300, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(&upstream.Server{Dir: dir})
	defer up.Close()
	p, _ := startTestPlatform(t)
	byDir := deploy(t, p, platform.Function{Name: "wordcount", Workload: "wordcount", Language: "python", Replicas: 2,
		Env: map[string]string{"FB_DATA_DIR": dir}})
	byURL := deploy(t, p, platform.Function{Name: "wordcount-http", Workload: "wordcount", Language: "python",
		Env: map[string]string{"FB_DATA_URL": up.URL + "/files"}})
	var a, b map[string]int
	for url, out := range map[string]*map[string]int{byDir: &a, byURL: &b} {
		r := do(t, "GET", url+"?file=doc-0003.txt", nil)
		if r.code != 200 || json.Unmarshal(r.body, out) != nil {
			t.Fatalf("%s: %d %q %s", url, r.code, r.body, r.header.Get("X-Fb-Error"))
		}
	}
	if a["words"] != 500 || a["distinct"] < 50 || a["distinct"] != b["distinct"] {
		t.Errorf("directory %v, http %v: want 500 words, the same both ways", a, b)
	}
	for _, bad := range []string{"?file=../etc/passwd", "?file=missing.txt", ""} {
		if r := do(t, "GET", byDir+bad, nil); r.code != 500 {
			t.Errorf("wordcount%s: %d", bad, r.code)
		}
	}

	mr := deploy(t, p, platform.Function{Name: "mapreduce", Workload: "mapreduce", Language: "python", Replicas: 2})
	var mappers struct {
		Words, Distinct, Tasks, Retries int
	}
	r := do(t, "GET", mr+"?docs=12&variant=mappers&parallel=4", nil)
	if r.code != 200 || json.Unmarshal(r.body, &mappers) != nil {
		t.Fatalf("mappers: %d %q %s", r.code, r.body, r.header.Get("X-Fb-Error"))
	}
	if mappers.Words != docs*500 || mappers.Tasks != docs || mappers.Retries != 0 {
		t.Errorf("mappers: %+v, want %d words in %d tasks", mappers, docs*500, docs)
	}
	var reducers struct {
		Words, Tasks, Retries, Levels int
		Letters                       map[string]int
	}
	// With most mapper invocations failing, every task is re-invoked until it succeeds and the
	// result is unchanged. fail=0.6: no failure at all among the 12 mappers has probability
	// 0.4^12 = 1.7e-5, a task failing all 30 attempts 0.6^30 = 2e-7 (fail=0.33 left 0.8 % of runs
	// with no retry to see, and CI met one).
	r = do(t, "GET", mr+"?docs=12&variant=reducers&fail=0.6&attempts=30", nil)
	if r.code != 200 || json.Unmarshal(r.body, &reducers) != nil {
		t.Fatalf("reducers: %d %q %s", r.code, r.body, r.header.Get("X-Fb-Error"))
	}
	sum := 0
	for _, n := range reducers.Letters {
		sum += n
	}
	// 12 documents: 12 mappers, then 6 + 3 + 1 + 1 reducers in 4 levels
	// (an odd one out passes to the next level).
	if reducers.Words != docs*500 || sum != docs*500 || reducers.Levels != 4 || reducers.Retries == 0 || reducers.Tasks != 12+11+reducers.Retries {
		t.Errorf("reducers: %+v, want %d words, 4 levels, 23 tasks + retries, some retries", reducers, docs*500)
	}
	// Several files per mapper (seed 002 Figs 10-11's x axis): 12 documents, 5 per mapper, give 3
	// mappers (5, 5, 2) and, with reducers, 2 levels (3 -> 2 -> 1); the coordinator's phase
	// times come in X-Fb-Phases.
	var grouped struct {
		Words, Tasks, Mappers, Levels int
		PhasesMs                      map[string]float64 `json:"phases_ms"`
	}
	for _, c := range []struct {
		variant string
		levels  int
		phases  []string
	}{{"mappers", 0, []string{"map_phase", "mapper", "mapper_max"}}, {"reducers", 2, []string{"map_phase", "mapper", "mapper_max", "reduce_phase", "reducer", "reducer_max"}}} {
		r = do(t, "GET", mr+"?docs=12&per_mapper=5&variant="+c.variant, nil)
		if r.code != 200 || json.Unmarshal(r.body, &grouped) != nil {
			t.Fatalf("%s per_mapper=5: %d %q %s", c.variant, r.code, r.body, r.header.Get("X-Fb-Error"))
		}
		if grouped.Words != docs*500 || grouped.Mappers != 3 || grouped.Levels != c.levels || grouped.Tasks != 3+c.levels {
			t.Errorf("%s per_mapper=5: %+v, want %d words, 3 mappers, %d levels", c.variant, grouped, docs*500, c.levels)
		}
		hdr := r.header.Get("X-Fb-Phases")
		for _, ph := range c.phases {
			if grouped.PhasesMs[ph] <= 0 || !strings.Contains(hdr, ph+"=") {
				t.Errorf("%s: phase %s: %v in the reply, header %q", c.variant, ph, grouped.PhasesMs[ph], hdr)
			}
		}
		if grouped.PhasesMs["mapper_max"] < grouped.PhasesMs["mapper"] || grouped.PhasesMs["map_phase"] < grouped.PhasesMs["mapper_max"] {
			t.Errorf("%s: phases %v: want mapper <= mapper_max <= map_phase", c.variant, grouped.PhasesMs)
		}
	}
	if r := do(t, "GET", byDir+"?files=doc-0000.txt,doc-0001.txt", nil); r.code != 200 || json.Unmarshal(r.body, &a) != nil || a["words"] != 1000 {
		t.Errorf("two files: %d %s", r.code, r.body)
	}
	// A task that always fails fails the job after its attempts.
	if r := do(t, "GET", mr+"?docs=2&fail=1&attempts=2", nil); r.code != 500 || !strings.Contains(r.header.Get("X-Fb-Error"), "failed 2 times") {
		t.Errorf("always failing: %d %q", r.code, r.header.Get("X-Fb-Error"))
	}
}
