package hist

import (
	"errors"
	"fmt"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// LogEntry is one tagged histogram of an .hlog file: an interval of a run
// (times in ms since the log's start time) and what was recorded in it.
type LogEntry struct {
	Tag            string
	StartMs, EndMs int64
	Histogram      *Histogram
}

// WriteLog writes entries in the HdrHistogram log format (version 1.3,
// compressed base64 histograms; tags as Tag=NAME), which HdrHistogram's
// tools in Java, C, Python, Rust and Go read. startMs is the log's absolute
// start (Unix ms).
func WriteLog(w io.Writer, startMs int64, entries []LogEntry) error {
	lw := hdr.NewHistogramLogWriter(w)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return fmt.Errorf("hlog: %w", err)
	}
	if err := lw.OutputComment("faasbench latency histograms, values in ns; tags: all, ok and each error class"); err != nil {
		return fmt.Errorf("hlog: %w", err)
	}
	lw.SetBaseTime(startMs)
	if err := lw.OutputStartTime(startMs); err != nil {
		return fmt.Errorf("hlog: %w", err)
	}
	if err := lw.OutputLegend(); err != nil {
		return fmt.Errorf("hlog: %w", err)
	}
	for _, e := range entries {
		h := e.Histogram.h
		h.SetTag(e.Tag)
		h.SetStartTimeMs(startMs + e.StartMs)
		h.SetEndTimeMs(startMs + e.EndMs)
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return fmt.Errorf("hlog %s: %w", e.Tag, err)
		}
	}
	return nil
}

// ReadLog reads every histogram of an .hlog file, by tag.
func ReadLog(r io.Reader) (map[string]*Histogram, error) {
	lr := hdr.NewHistogramLogReader(r)
	out := map[string]*Histogram{}
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, fmt.Errorf("hlog: %w", err)
		}
		if h == nil {
			return out, nil
		}
		mine := New()
		if dropped := mine.h.Merge(h); dropped > 0 {
			return out, fmt.Errorf("hlog %s: %d values outside faasbench's range", h.Tag(), dropped)
		}
		if prev, ok := out[h.Tag()]; ok {
			if err := prev.Merge(mine); err != nil {
				return out, err
			}
			continue
		}
		out[h.Tag()] = mine
	}
}
