package distrib

import (
	"context"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
)

// With the load watched (its executor has live counters), the coordinator's
// counters follow every generator's share while the load goes, and end at
// what the generators reported; unwatched, no job asks for live messages.
func TestCoordinatorsLiveCountsCoverEveryGenerator(t *testing.T) {
	var a arrivals
	s := a.server(t)
	co := inProcess(t, 3, origin(t, s.URL), nil)
	live := &load.Live{}
	ex := openLoad(t, 500, 1000) // two seconds
	ex.Live = live
	jobs, err := NewJobs(ex, co.N(), load.Target{URL: s.URL}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if time.Duration(j.LiveEveryNs) != LiveEvery {
			t.Fatalf("job %d asks for live counts every %v", j.Share.Index, time.Duration(j.LiveEveryNs))
		}
	}
	var mid []int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
				done, _ := live.Snapshot()
				mid = append(mid, done)
			}
		}
	}()
	out, err := co.RunLive(context.Background(), jobs, live)
	close(stop)
	<-watched
	if err != nil {
		t.Fatal(err)
	}
	var during int64
	for _, n := range mid {
		if n > 0 && n < 1000 {
			during = n
		}
	}
	if during == 0 {
		t.Errorf("the live counts never showed the load going: %v", mid)
	}
	var v load.LiveView
	live.Read(&v)
	if out.Result.Succeeded() != 1000 || v.Counts[load.ClassOK] != 1000 {
		t.Errorf("live ok %d at the end, reported %d: each generator's last live message is its final count", v.Counts[load.ClassOK], out.Result.Succeeded())
	}
	var buckets uint64
	for _, n := range v.OK {
		buckets += n
	}
	if int64(buckets) != v.Counts[load.ClassOK] {
		t.Errorf("latency buckets hold %d, ok %d", buckets, v.Counts[load.ClassOK])
	}
	unwatched, err := NewJobs(openLoad(t, 500, 10), 2, load.Target{URL: s.URL}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if unwatched[0].LiveEveryNs != 0 {
		t.Error("an unwatched load asks for live counts")
	}
}
