package local

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/replay"
	"github.com/faasbench/faasbench/trace"
)

// manyPlan is a replay of a synthetic trace on the local platform: n spin
// functions deployed at zero replicas with a keep-alive, replaying the
// first minutes of the trace compressed.
type manyPlan struct {
	n         int
	minutes   int
	compress  float64
	keepAlive time.Duration
	// spinMs is each call's busy time: the platform's capacity for
	// functions is measured, not the machine's for the trace's CPU time
	// (its executions average seconds, far beyond 2 cores).
	spinMs int
	seed   uint64
}

// manyFigures are what a replay of manyPlan measured.
type manyFigures struct {
	deploy, remove time.Duration
	sum            replay.Summary
	lagP99         time.Duration
	// peakInstances is the most instances running at once (sampled every
	// 250 ms), peakRSSMB the most resident memory of the daemon and its
	// instances at once; selfMB faasbench's (this process's) peak.
	peakInstances int
	peakRSSMB     float64
	selfMB        float64
	requests      int
}

// replayMany deploys p's functions, replays, removes them and measures.
func replayMany(tb testing.TB, p *Platform, runID string, mp manyPlan) manyFigures {
	tb.Helper()
	ctx := context.Background()
	tr, err := trace.Synthesize(trace.SynthOptions{Functions: mp.n, Minutes: mp.minutes, Seed: mp.seed})
	if err != nil {
		tb.Fatal(err)
	}
	sched, err := trace.Schedule(tr, trace.ArrivalOptions{Process: trace.Poisson, Minutes: mp.minutes, Compress: mp.compress, Seed: mp.seed})
	if err != nil {
		tb.Fatal(err)
	}
	var fig manyFigures
	fig.requests = len(sched.Arrivals)
	name := func(i int) string { return fmt.Sprintf("fn-%04d", i) }
	keep := strconv.FormatInt(mp.keepAlive.Milliseconds(), 10) + "ms"
	began := time.Now()
	urls := make([]string, mp.n)
	for i := range mp.n {
		if err := p.Deploy(ctx, platform.Function{Name: name(i), Workload: "spin", Language: "go", Replicas: 0,
			Settings: map[string]string{"scale_to_zero_after": keep}}); err != nil {
			tb.Fatalf("deploy %s: %v", name(i), err)
		}
		if urls[i], err = p.Endpoint(ctx, name(i)); err != nil {
			tb.Fatal(err)
		}
	}
	fig.deploy = time.Since(began)
	fns := replay.FromTrace(tr, sched, name, func(i int, _ *trace.Function) load.Target {
		return load.Target{Method: "GET", URL: urls[i] + "?ms=" + strconv.Itoa(mp.spinMs)}
	})
	for i := range fns {
		fns[i].ExecMs = float64(mp.spinMs)
	}
	cl := load.NewClient(load.Options{Timeout: 30 * time.Second})
	defer cl.Close()
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			if fs, err := p.Functions(ctx); err == nil {
				n := 0
				for _, f := range fs {
					n += f.Ready
				}
				fig.peakInstances = max(fig.peakInstances, n)
			}
			fig.peakRSSMB = max(fig.peakRSSMB, rssMB(reaper.Find(runID)))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	out, err := replay.Run(ctx, cl, fns, replay.Options{MaxInFlight: 16, MaxLag: time.Second, Length: sched.Length})
	close(stop)
	<-sampled
	if err != nil {
		tb.Fatalf("replay: %v", err)
	}
	fig.sum = replay.Summarize(out, time.Duration(float64(time.Minute)/mp.compress))
	lag := hist.New()
	for _, o := range out {
		if err := lag.Merge(o.Result.LagHist()); err != nil {
			tb.Fatal(err)
		}
	}
	fig.lagP99 = time.Duration(lag.Quantile(0.99))
	fig.selfMB = peakSelfMB()
	began = time.Now()
	for i := range mp.n {
		if err := p.Remove(ctx, name(i)); err != nil {
			tb.Fatalf("remove %s: %v", name(i), err)
		}
	}
	fig.remove = time.Since(began)
	return fig
}

// rssMB sums the resident memory of the processes (footprint.go's
// procUsage; a process gone meanwhile counts 0).
func rssMB(pids []int) float64 {
	var total int64
	for _, pid := range pids {
		if _, rss, err := procUsage("/proc/" + strconv.Itoa(pid)); err == nil {
			total += rss
		}
	}
	return float64(total) / (1 << 20)
}

// peakSelfMB is this process's peak resident memory (VmHWM, which
// /proc/self/stat does not have).
func peakSelfMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return float64(kb) / 1024
			}
		}
	}
	return 0
}

// The local platform holds many functions at zero replicas with a
// keep-alive: a replay of a synthetic trace reaches every function it
// schedules, cold starts come from zero and the idle go back to it, and
// everything is sent on time.
func TestManyFunctionsScaleToZeroUnderATraceReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("short: deploys 40 functions and replays for 10 s")
	}
	p, runID := startTestPlatform(t)
	mp := manyPlan{n: 40, minutes: 1, compress: 6, keepAlive: time.Second, spinMs: 1, seed: 3}
	fig := replayMany(t, p, runID, mp)
	s := fig.sum
	t.Logf("%d functions, %d requests: sent %d, ok %d, gap %.4f, cold starts %d, peak instances %d, lag p99 %v, deploy %v, remove %v",
		mp.n, fig.requests, s.Sent, s.OK, s.Gap, s.ColdStarts, fig.peakInstances, fig.lagP99, fig.deploy, fig.remove)
	if s.Intended != int64(fig.requests) || s.Intended == 0 {
		t.Fatalf("intended %d, the schedule has %d", s.Intended, fig.requests)
	}
	// Every request the generator sent succeeded (a busy machine may drop a
	// late one, counted as not sent: a gap, never a failure).
	if s.OK != s.Sent || s.Sent+dropped(s) != s.Intended {
		t.Errorf("sent %d, ok %d, dropped %d of %d intended", s.Sent, s.OK, dropped(s), s.Intended)
	}
	called, cold := 0, 0
	for _, f := range s.Functions {
		if f.Sent > 0 {
			called++
			// Deployed at zero: its first call met no instance.
			if f.ColdStarts == 0 {
				t.Errorf("%s: %d calls from zero replicas and no cold start", f.Name, f.Sent)
			}
			cold += int(f.ColdStarts)
		}
	}
	if called < 3 {
		t.Fatalf("only %d functions called: the replay tests nothing", called)
	}
	// Instances are never more than the functions called (one each: no
	// autoscaler), and after the replay and a keep-alive every one is gone.
	if fig.peakInstances < 1 || fig.peakInstances > called {
		t.Errorf("peak instances %d with %d functions called", fig.peakInstances, called)
	}
	if int64(cold) != s.ColdStarts {
		t.Errorf("cold starts %d over functions, %d in total", cold, s.ColdStarts)
	}
}

// BenchmarkManyFunctions measures what the local platform sustains with
// scale to zero (#63's targets): n functions deployed at zero with a 5 s
// keep-alive, one minute of a synthetic trace replayed at its own pace
// (FB_MANY_N, default 500; FB_MANY_COMPRESS, default 1).
//
//	go test -run '^$' -bench ManyFunctions -benchtime 1x ./platform/local/
func BenchmarkManyFunctions(b *testing.B) {
	n, compress := 500, 1.0
	if v, err := strconv.Atoi(os.Getenv("FB_MANY_N")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.ParseFloat(os.Getenv("FB_MANY_COMPRESS"), 64); err == nil && v >= 1 {
		compress = v
	}
	var p *Platform
	var runID string
	if cpus := os.Getenv("FB_MANY_PLATFORM_CPUS"); cpus != "" {
		// The platform and its instances on these CPUs (run the benchmark
		// itself on the others: taskset), generator and platform apart.
		set, err := affinity.Parse(cpus)
		if err != nil {
			b.Fatalf("FB_MANY_PLATFORM_CPUS: %v", err)
		}
		p, runID = startTestPlatformOn(b, set)
	} else {
		p, runID = startTestPlatform(b)
	}
	for i := range b.N {
		fig := replayMany(b, p, runID, manyPlan{n: n, minutes: 1, compress: compress, keepAlive: 5 * time.Second, spinMs: 1, seed: uint64(i + 1)})
		s := fig.sum
		b.ReportMetric(float64(fig.requests), "requests")
		b.ReportMetric(100*s.Gap, "gap-%")
		b.ReportMetric(float64(fig.lagP99.Microseconds())/1000, "lag-p99-ms")
		b.ReportMetric(float64(s.ColdStarts), "cold-starts")
		b.ReportMetric(float64(fig.peakInstances), "peak-instances")
		b.ReportMetric(fig.peakRSSMB, "platform-peak-MB")
		b.ReportMetric(fig.selfMB, "faasbench-peak-MB")
		b.ReportMetric(fig.deploy.Seconds(), "deploy-s")
		b.ReportMetric(fig.remove.Seconds(), "remove-s")
		b.Logf("%d functions: %d requests, sent %d, ok %d, dropped %d, cold starts %d, slowdown p50 %.2f p99 %.2f",
			n, fig.requests, s.Sent, s.OK, dropped(s), s.ColdStarts, s.SlowdownP50, s.SlowdownP99)
	}
}

// dropped counts the requests the generator was too late to send.
func dropped(s replay.Summary) int64 {
	var n int64
	for _, f := range s.Functions {
		n += f.Dropped
	}
	return n
}
