package load

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// RecordsSchemaVersion is the version of the per-request records file.
const RecordsSchemaVersion = "2"

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
	// Generator is the load generator that sent it (load.generators; 0 when
	// one process sent the whole load). Offsets of every generator count
	// from the same start instant. Schema version 2.
	Generator int32 `parquet:"generator"`
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
	gen     int32
	wmu     sync.Mutex // the writer: its goroutine, and WriteRows after a load
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
				rows = append(rows, toRow(&c.samples[i], c.worker, s.gen))
			}
			s.wmu.Lock()
			if _, err := s.w.Write(rows); err != nil {
				s.err = fmt.Errorf("records: %w", err)
			} else {
				s.written.Add(int64(len(rows)))
			}
			s.wmu.Unlock()
		}
		c.samples = c.samples[:0]
		s.free <- c
	}
}

func toRow(x *Sample, worker, gen int32) Row {
	return Row{IntendedNs: int64(x.Intended), SentNs: int64(x.Sent), FirstByteNs: int64(x.FirstByte), DoneNs: int64(x.Done),
		Status: int32(x.Status), Class: x.Class.String(), BytesOut: x.BytesOut, BytesIn: x.BytesIn, Attempt: int32(x.Attempt),
		Worker: worker, Instance: x.Instance, Cold: x.Cold, ColdKind: x.ColdKind, HandlerNs: x.HandlerNs,
		GwQueueNs: x.GwQueueNs, GwUpstreamNs: x.GwUpstreamNs, GwSetupNs: x.GwSetupNs, Generator: gen}
}

// ForGenerator marks the rows this sink writes as generator i's (before
// the load starts).
func (s *RecordSink) ForGenerator(i int) *RecordSink {
	s.gen = int32(i)
	return s
}

// WriteRows adds rows another process recorded (a generator's share of a
// load), and counts what it dropped: the sink then holds the whole load.
func (s *RecordSink) WriteRows(rows []Row, dropped int64) error {
	s.dropped.Add(dropped)
	if len(rows) == 0 {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(rows); err != nil {
		s.err = fmt.Errorf("records: %w", err)
		return s.err
	}
	s.written.Add(int64(len(rows)))
	return nil
}

// CopyRecords adds every row of the records file at path to s, reading it
// in batches (memory stays bounded by a batch, whatever the file's size).
func CopyRecords(s *RecordSink, path string, dropped int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("records: %w", err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[Row](f)
	defer r.Close()
	buf := make([]Row, chunkRows)
	for {
		n, err := r.Read(buf)
		if werr := s.WriteRows(buf[:n], 0); werr != nil {
			return werr
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("records %s: %w", path, err)
		}
	}
	s.dropped.Add(dropped)
	return nil
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
		s.wmu.Lock()
		defer s.wmu.Unlock()
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
