package load

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// RecordsSchemaVersion is the version of the per-request records file.
const RecordsSchemaVersion = "1"

// Row is one request in the records file (Parquet, one row group per flush;
// pandas, DuckDB and polars read it directly). Times are nanoseconds: offsets
// from the run's start on the generator's monotonic clock, except
// handler_ns, the handler duration the function reported (-1: unknown).
type Row struct {
	IntendedNs  int64  `parquet:"intended_ns"`
	SentNs      int64  `parquet:"sent_ns"`
	FirstByteNs int64  `parquet:"first_byte_ns"`
	DoneNs      int64  `parquet:"done_ns"`
	Status      int32  `parquet:"status"`
	Class       string `parquet:"class,dict"`
	BytesOut    int64  `parquet:"bytes_out"`
	BytesIn     int64  `parquet:"bytes_in"`
	Attempt     int32  `parquet:"attempt"`
	Worker      int32  `parquet:"worker"`
	Instance    string `parquet:"instance,dict"`
	Cold        bool   `parquet:"cold"`
	ColdKind    string `parquet:"cold_kind,dict"`
	HandlerNs   int64  `parquet:"handler_ns"`
	// The gateway's queueing and round trip to the instance (-1: no stamps).
	GwQueueNs    int64 `parquet:"gw_queue_ns"`
	GwUpstreamNs int64 `parquet:"gw_upstream_ns"`
	// From the gateway's assignment to the handler's start (-1: unknown).
	GwSetupNs int64 `parquet:"gw_setup_ns"`
}

// chunkRows is how many samples a worker buffers before handing them over.
const chunkRows = 4096

type chunk struct {
	worker  int32
	samples []Sample
}

// RecordSink streams per-request records to a Parquet file. Workers fill
// preallocated chunks (no allocation, no lock, no I/O on the hot path) and
// hand a full chunk to the writer goroutine with one channel send per 4096
// requests. Memory is bounded by the pool of chunks: if the writer falls
// behind, records are dropped and counted, never waited for.
type RecordSink struct {
	full    chan *chunk
	free    chan *chunk
	w       *parquet.GenericWriter[Row]
	done    chan struct{}
	err     error
	written atomic.Int64
	dropped atomic.Int64
	closeMu sync.Once
	nextID  atomic.Int32
}

// NewRecordSink writes records to out; pool is the number of chunks (each
// ~0.5 MB), at least twice the number of workers is sensible.
func NewRecordSink(out io.Writer, pool int, meta map[string]string) *RecordSink {
	opts := []parquet.WriterOption{parquet.Compression(&zstd.Codec{}), parquet.KeyValueMetadata("faasbench.records_schema", RecordsSchemaVersion)}
	for k, v := range meta {
		opts = append(opts, parquet.KeyValueMetadata(k, v))
	}
	s := &RecordSink{full: make(chan *chunk, pool), free: make(chan *chunk, pool),
		w: parquet.NewGenericWriter[Row](out, opts...), done: make(chan struct{})}
	for i := 0; i < pool; i++ {
		s.free <- &chunk{samples: make([]Sample, 0, chunkRows)}
	}
	go s.loop()
	return s
}

func (s *RecordSink) loop() {
	defer close(s.done)
	rows := make([]Row, 0, chunkRows)
	for c := range s.full {
		if s.err == nil {
			rows = rows[:0]
			for i := range c.samples {
				rows = append(rows, toRow(&c.samples[i], c.worker))
			}
			if _, err := s.w.Write(rows); err != nil {
				s.err = fmt.Errorf("records: %w", err)
			} else {
				s.written.Add(int64(len(rows)))
			}
		}
		c.samples = c.samples[:0]
		s.free <- c
	}
}

func toRow(x *Sample, worker int32) Row {
	return Row{IntendedNs: int64(x.Intended), SentNs: int64(x.Sent), FirstByteNs: int64(x.FirstByte), DoneNs: int64(x.Done),
		Status: int32(x.Status), Class: x.Class.String(), BytesOut: x.BytesOut, BytesIn: x.BytesIn, Attempt: int32(x.Attempt),
		Worker: worker, Instance: x.Instance, Cold: x.Cold, ColdKind: x.ColdKind, HandlerNs: x.HandlerNs,
		GwQueueNs: x.GwQueueNs, GwUpstreamNs: x.GwUpstreamNs, GwSetupNs: x.GwSetupNs}
}

// recordBuffer is one worker's handle on the sink.
type recordBuffer struct {
	s   *RecordSink
	id  int32
	cur *chunk
}

func (s *RecordSink) buffer() *recordBuffer {
	return &recordBuffer{s: s, id: s.nextID.Add(1) - 1}
}

func (b *recordBuffer) add(x *Sample) {
	if b.cur == nil {
		select {
		case b.cur = <-b.s.free:
			b.cur.worker = b.id
		default:
			b.s.dropped.Add(1)
			return
		}
	}
	b.cur.samples = append(b.cur.samples, *x)
	if len(b.cur.samples) == chunkRows {
		b.flush()
	}
}

func (b *recordBuffer) flush() {
	if b.cur != nil && len(b.cur.samples) > 0 {
		b.s.full <- b.cur // cannot block: at most pool chunks exist
		b.cur = nil
	}
}

// Close writes what is buffered and finishes the file. It reports how many
// records were written and dropped.
func (s *RecordSink) Close() (written, dropped int64, err error) {
	s.closeMu.Do(func() {
		close(s.full)
		<-s.done
		if cerr := s.w.Close(); s.err == nil && cerr != nil {
			s.err = fmt.Errorf("records: %w", cerr)
		}
	})
	return s.written.Load(), s.dropped.Load(), s.err
}

// Meta is the standard key-value metadata of a records file.
func Meta(runID string, startUnixNs int64) map[string]string {
	return map[string]string{"faasbench.run_id": runID, "faasbench.start_unix_ns": strconv.FormatInt(startUnixNs, 10)}
}
