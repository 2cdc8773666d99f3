package load

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestRecordsRoundTrip(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderInstance, "i-7")
		w.Header().Set(HeaderHandlerBegin, "10")
		w.Header().Set(HeaderHandlerEnd, "35")
		if r.URL.Query().Get("x") == "" {
			w.Write([]byte("pong"))
		}
	})
	var buf bytes.Buffer
	sink := NewRecordSink(&buf, 8, Meta("run-1", 123))
	cl := NewClient(Options{})
	defer cl.Close()
	// A run without records first, on the same client: it must not be recorded.
	if _, err := (Closed{Concurrency: 2, Requests: 50}).Run(context.Background(), cl, Target{URL: s.URL}); err != nil {
		t.Fatal(err)
	}
	// 3 workers × more than one chunk each, so chunks are handed over and recycled.
	res, err := Closed{Concurrency: 3, Requests: 3*chunkRows + 17, Records: sink}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	written, dropped, err := sink.Close()
	if err != nil {
		t.Fatal(err)
	}
	if written+dropped != res.Total() || written == 0 {
		t.Fatalf("written %d + dropped %d != %d requests", written, dropped, res.Total())
	}
	rows, err := parquet.Read[Row](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rows)) != written {
		t.Fatalf("read %d rows, wrote %d", len(rows), written)
	}
	workers := map[int32]bool{}
	for _, r := range rows {
		if r.Class != "ok" || r.Status != 200 || r.Instance != "i-7" || r.HandlerNs != 25 || r.BytesIn != 4 {
			t.Fatalf("row %+v", r)
		}
		if !(r.IntendedNs <= r.SentNs && r.SentNs <= r.FirstByteNs && r.FirstByteNs <= r.DoneNs) {
			t.Fatalf("times out of order: %+v", r)
		}
		workers[r.Worker] = true
	}
	if len(workers) != 3 {
		t.Errorf("rows from %d workers, want 3", len(workers))
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := f.Lookup("faasbench.run_id"); !ok || v != "run-1" {
		t.Errorf("metadata run_id %q %v", v, ok)
	}
}

func TestRecordsDropInsteadOfBlocking(t *testing.T) {
	// A writer that never finishes: the sink must drop and count, not stall the workers.
	pr, pw := io.Pipe()
	defer pr.Close()
	sink := NewRecordSink(pw, 1, nil)
	b1, b2 := sink.buffer(), sink.buffer()
	x := Sample{Class: ClassOK}
	for i := 0; i < chunkRows*3; i++ {
		b1.add(&x)
		b2.add(&x)
	}
	if sink.dropped.Load() == 0 {
		t.Fatal("nothing dropped although the writer is stuck")
	}
	pr.Close()
	sink.Close()
}

// DuckDB, as a user would use it, reads the file faasbench writes.
func TestRecordsReadableByDuckDB(t *testing.T) {
	var buf bytes.Buffer
	sink := NewRecordSink(&buf, 2, Meta("run-2", 1))
	b := sink.buffer()
	for i := 0; i < 1000; i++ {
		b.add(&Sample{Class: Class503, Status: 503, Done: 1000, HandlerNs: -1})
	}
	b.flush()
	if _, _, err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "records.parquet")
	os.WriteFile(path, buf.Bytes(), 0o644)
	out, err := exec.Command("python3", "-c", `import duckdb, sys
print(duckdb.sql("select count(*), min(class), sum(status) from read_parquet('`+path+`')").fetchall())`).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb (installed by scripts/setup.sh): %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "(1000, 'http-503', 503000)") {
		t.Fatalf("duckdb read %s", out)
	}
}
