package load

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// ScheduleSpec is a parsed --schedule value, before its limits are known.
//
//	constant:RATE                 RATE requests/s, evenly spaced
//	poisson:RATE                  Poisson arrivals at RATE/s (seeded)
//	burst:SIZE/EVERY              SIZE requests at once every EVERY (e.g. burst:50/10s)
//	stages:D@R,~D@R,...           steps; a ~ ramps linearly from the previous rate (e.g. stages:10s@100,~30s@500)
//	trace:FILE                    CSV of send offsets (column offset_ns, offset_ms or offset_s)
//	azure:FILE[#ROW]              Azure Functions trace: per-minute counts (columns 1..1440), spread evenly in each minute
type ScheduleSpec struct {
	Kind    string
	Rate    float64
	Burst   Burst
	Stages  []Stage
	Offsets Offsets
}

// ParseScheduleSpec parses a --schedule value; files are read now.
func ParseScheduleSpec(s string) (ScheduleSpec, error) {
	kind, arg, ok := strings.Cut(s, ":")
	if !ok || arg == "" {
		return ScheduleSpec{}, fmt.Errorf("schedule %q: want KIND:ARG (constant, poisson, burst, stages, trace, azure)", s)
	}
	sp := ScheduleSpec{Kind: kind}
	var err error
	switch kind {
	case "constant", "poisson":
		sp.Rate, err = parseRate(arg)
	case "burst":
		sp.Burst, err = ParseBurst(arg)
	case "stages":
		sp.Stages, err = ParseStages(arg)
	case "trace":
		sp.Offsets, err = readWith(arg, ParseOffsetsCSV)
	case "azure":
		file, row, _ := strings.Cut(arg, "#")
		r := 0
		if row != "" {
			if r, err = strconv.Atoi(row); err != nil || r < 0 {
				return sp, fmt.Errorf("schedule %q: row %q is not a row number", s, row)
			}
		}
		sp.Offsets, err = readWith(file, func(rd io.Reader) (Offsets, error) { return ParseAzureCSV(rd, r) })
	default:
		return sp, fmt.Errorf("schedule %q: unknown kind %q (constant, poisson, burst, stages, trace, azure)", s, kind)
	}
	if err != nil {
		return sp, fmt.Errorf("schedule %q: %w", s, err)
	}
	return sp, nil
}

// Build makes the Schedule, bounded by duration and/or requests.
func (sp ScheduleSpec) Build(seed uint64, duration time.Duration, requests int64) (Schedule, error) {
	var s Schedule
	switch sp.Kind {
	case "constant":
		s = Constant{Rate: sp.Rate}
	case "poisson":
		p, err := NewPoisson(sp.Rate, seed, duration, requests)
		if err != nil {
			return nil, err
		}
		s = p
	case "burst":
		s = sp.Burst
	case "stages":
		st, err := NewStages(sp.Stages)
		if err != nil {
			return nil, err
		}
		s = st
	case "trace", "azure":
		s = sp.Offsets
	default:
		return nil, fmt.Errorf("schedule: unknown kind %q", sp.Kind)
	}
	if duration <= 0 && requests <= 0 && (sp.Kind == "constant" || sp.Kind == "burst") {
		return nil, errors.New("schedule: an unbounded schedule needs a duration or a request count")
	}
	return Limit{S: s, Duration: duration, Requests: requests}, nil
}

func readWith(path string, parse func(io.Reader) (Offsets, error)) (Offsets, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(bufio.NewReader(f))
}

func parseRate(s string) (float64, error) {
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return 0, fmt.Errorf("rate %q: want a positive number of requests per second", s)
	}
	return r, nil
}

// ParseBurst parses SIZE/EVERY ("50/10s").
func ParseBurst(s string) (Burst, error) {
	size, every, ok := strings.Cut(s, "/")
	if !ok {
		return Burst{}, fmt.Errorf("burst %q: want SIZE/EVERY, e.g. 50/10s", s)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(size), 10, 64)
	if err != nil || n <= 0 {
		return Burst{}, fmt.Errorf("burst %q: size %q is not a positive whole number", s, size)
	}
	d, err := time.ParseDuration(strings.TrimSpace(every))
	if err != nil || d <= 0 {
		return Burst{}, fmt.Errorf("burst %q: interval %q is not a positive duration", s, every)
	}
	return Burst{Size: n, Every: d}, nil
}

// ParseStages parses D@R,~D@R,... (a ~ ramps from the previous rate).
func ParseStages(s string) ([]Stage, error) {
	var out []Stage
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		ramp := strings.HasPrefix(part, "~")
		part = strings.TrimPrefix(part, "~")
		d, r, ok := strings.Cut(part, "@")
		if !ok {
			return nil, fmt.Errorf("stage %d %q: want DURATION@RATE, e.g. 10s@100", i+1, part)
		}
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil || dur <= 0 {
			return nil, fmt.Errorf("stage %d: duration %q is not a positive duration", i+1, d)
		}
		rate, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil || rate < 0 || math.IsInf(rate, 0) || math.IsNaN(rate) {
			return nil, fmt.Errorf("stage %d: rate %q is not a number ≥ 0", i+1, r)
		}
		out = append(out, Stage{Duration: dur, Rate: rate, Ramp: ramp})
	}
	if _, err := NewStages(out); err != nil {
		return nil, err
	}
	return out, nil
}

// MaxTraceRequests bounds a trace held in memory (8 bytes each).
const MaxTraceRequests = 50_000_000

// ParseOffsetsCSV reads a CSV with a header naming one of offset_ns,
// offset_ms or offset_s; offsets must not decrease.
func ParseOffsetsCSV(r io.Reader) (Offsets, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("trace: header: %w", err)
	}
	col, scale := -1, 0.0
	for i, h := range header {
		switch strings.TrimSpace(h) {
		case "offset_ns":
			col, scale = i, 1
		case "offset_ms":
			col, scale = i, 1e6
		case "offset_s":
			col, scale = i, 1e9
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("trace: no offset_ns, offset_ms or offset_s column in header %v", header)
	}
	var out Offsets
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("trace: line %d: %w", line, err)
		}
		if col >= len(rec) {
			return nil, fmt.Errorf("trace: line %d: no column %d", line, col+1)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
		if err != nil || v < 0 || math.IsNaN(v) || v*scale > float64(math.MaxInt64/2) {
			return nil, fmt.Errorf("trace: line %d: offset %q is not a number ≥ 0", line, rec[col])
		}
		off := time.Duration(v * scale)
		if n := len(out); n > 0 && off < out[n-1] {
			return nil, fmt.Errorf("trace: line %d: offset %v is before the previous one (%v)", line, off, out[n-1])
		}
		if len(out) >= MaxTraceRequests {
			return nil, fmt.Errorf("trace: more than %d requests", MaxTraceRequests)
		}
		out = append(out, off)
	}
	if len(out) == 0 {
		return nil, errors.New("trace: no offsets")
	}
	return out, nil
}

// ParseAzureCSV reads the Azure Functions 2019 trace format (columns
// HashOwner, HashApp, HashFunction, Trigger, then 1..1440: invocations per
// minute) and returns row's invocations spread evenly within each minute.
func ParseAzureCSV(r io.Reader, row int) (Offsets, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("azure trace: header: %w", err)
	}
	first := -1
	for i, h := range header {
		if strings.TrimSpace(h) == "1" {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, errors.New("azure trace: no minute columns (1..1440) in the header")
	}
	for i := 0; ; i++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil, fmt.Errorf("azure trace: no row %d", row)
		}
		if err != nil {
			return nil, fmt.Errorf("azure trace: row %d: %w", i, err)
		}
		if i != row {
			continue
		}
		var out Offsets
		for m, cell := range rec[min(first, len(rec)):] {
			n, err := strconv.ParseInt(strings.TrimSpace(cell), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("azure trace: row %d minute %d: %q is not a count", row, m+1, cell)
			}
			if int64(len(out))+n > MaxTraceRequests {
				return nil, fmt.Errorf("azure trace: more than %d requests", MaxTraceRequests)
			}
			for j := int64(0); j < n; j++ {
				out = append(out, time.Duration(m)*time.Minute+time.Duration((float64(j)+0.5)*float64(time.Minute)/float64(n)))
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("azure trace: row %d has no invocations", row)
		}
		return out, nil
	}
}

// WriteSchedule writes every offset of s (which must be finite: wrap it in a
// Limit) as CSV "index,offset_ns", which ParseOffsetsCSV replays exactly.
func WriteSchedule(w io.Writer, s Schedule) (int64, error) {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString("index,offset_ns\n"); err != nil {
		return 0, err
	}
	var i int64
	for ; i < MaxTraceRequests; i++ {
		off, ok := s.Offset(i)
		if !ok {
			break
		}
		if _, err := fmt.Fprintf(bw, "%d,%d\n", i, int64(off)); err != nil {
			return i, err
		}
	}
	return i, bw.Flush()
}
