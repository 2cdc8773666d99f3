package load

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[len(b)-1-i] = b[i]
	}
	return out
}

func TestBatchRetriesBoundedAndCountsEverything(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	var inflight, peak atomic.Int64
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		cur := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		key := b.String()
		mu.Lock()
		seen[key]++
		n := seen[key]
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		switch {
		case key == "never":
			w.WriteHeader(http.StatusBadGateway) // always fails
		case key[0] == 'f' && n == 1:
			w.WriteHeader(http.StatusServiceUnavailable) // fails once, then works
		default:
			w.Write(reverse(b.Bytes()))
		}
	})
	items := [][]byte{[]byte("a1"), []byte("f2"), []byte("a3"), []byte("never"), []byte("f5"), []byte("a6")}
	cl := NewClient(Options{ValidatePair: func(req, resp []byte) error {
		if !bytes.Equal(reverse(req), resp) {
			return errors.New("not reversed")
		}
		return nil
	}})
	defer cl.Close()
	res, f, err := Batch{Items: items, MaxInFlight: 2, MaxAttempts: 3}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if f.Items != 6 || f.Succeeded != 5 || f.Failed != 1 || f.NotDone != 0 {
		t.Fatalf("figures %+v", f)
	}
	// 3 good first tries + 2 × (fail, ok) + 3 tries of "never" = 10 attempts.
	if f.Attempts != 10 || f.Retries != 4 || res.Total() != 10 {
		t.Fatalf("attempts %d retries %d recorded %d, want 10, 4, 10", f.Attempts, f.Retries, res.Total())
	}
	if res.Counts[Class502] != 3 || res.Counts[Class503] != 2 || res.Counts[ClassOK] != 5 {
		t.Errorf("classes %v", res.Counts)
	}
	if peak.Load() > 2 {
		t.Errorf("%d requests in flight, bound was 2", peak.Load())
	}
	if f.Bytes != 2+2+2+2+2 {
		t.Errorf("bytes %d", f.Bytes)
	}
}

func TestBatchNoRetryOnChosenClasses(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusRequestEntityTooLarge) })
	cl := NewClient(Options{})
	defer cl.Close()
	_, f, err := Batch{Items: [][]byte{[]byte("x"), []byte("y")}, MaxInFlight: 1, MaxAttempts: 5,
		Retry: func(c Class) bool { return c != Class4xx }}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	// 413 is a failure (never success, unlike the seed's coordinator), and not retried.
	if f.Failed != 2 || f.Attempts != 2 {
		t.Fatalf("%+v", f)
	}
	if (Batch{MaxInFlight: 1}).Validate() == nil || (Batch{Items: [][]byte{nil}}).Validate() == nil {
		t.Error("invalid batches accepted")
	}
}
