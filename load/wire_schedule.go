package load

import (
	"errors"
	"fmt"
	"time"
)

// WireSchedule is a Schedule as data, to make the same schedule in another
// process: every kind is rebuilt from what defines it (a Poisson schedule
// from its rate, seed and horizon, so its offsets are the same to the
// nanosecond), never sent as a list of offsets unless it is one.
type WireSchedule struct {
	Kind string  `json:"kind"` // constant, burst, stages, offsets, poisson, limit, segment
	Rate float64 `json:"rate,omitempty"`
	// burst
	Size    int64 `json:"size,omitempty"`
	EveryNs int64 `json:"every_ns,omitempty"`
	// stages
	Stages []Stage `json:"stages,omitempty"`
	// offsets (a trace)
	OffsetsNs []int64 `json:"offsets_ns,omitempty"`
	// poisson
	Seed      uint64 `json:"seed,omitempty"`
	HorizonNs int64  `json:"horizon_ns,omitempty"`
	// poisson, limit
	Requests int64 `json:"requests,omitempty"`
	// limit
	DurationNs int64 `json:"duration_ns,omitempty"`
	// limit, segment
	Inner *WireSchedule `json:"inner,omitempty"`
	Share Share         `json:"share,omitzero"`
}

// MaxWireOffsets bounds a trace sent to a generator (8 bytes each, more as
// JSON): a longer trace is split before it is sent.
const MaxWireOffsets = 5_000_000

// ToWire describes s, or says which kind of schedule cannot be sent.
func ToWire(s Schedule) (*WireSchedule, error) {
	switch s := s.(type) {
	case Constant:
		return &WireSchedule{Kind: "constant", Rate: s.Rate}, nil
	case Burst:
		return &WireSchedule{Kind: "burst", Size: s.Size, EveryNs: int64(s.Every)}, nil
	case *Stages:
		return &WireSchedule{Kind: "stages", Stages: s.stages}, nil
	case Offsets:
		if len(s) > MaxWireOffsets {
			return nil, fmt.Errorf("schedule: a trace of %d requests is more than %d to send to a generator", len(s), MaxWireOffsets)
		}
		w := &WireSchedule{Kind: "offsets", OffsetsNs: make([]int64, len(s))}
		for i, o := range s {
			w.OffsetsNs[i] = int64(o)
		}
		return w, nil
	case *Poisson:
		return &WireSchedule{Kind: "poisson", Rate: s.Rate, Seed: s.Seed, HorizonNs: int64(s.horizon), Requests: s.requests}, nil
	case Limit:
		in, err := ToWire(s.S)
		if err != nil {
			return nil, err
		}
		return &WireSchedule{Kind: "limit", Inner: in, DurationNs: int64(s.Duration), Requests: s.Requests}, nil
	case Segment:
		in, err := ToWire(s.S)
		if err != nil {
			return nil, err
		}
		return &WireSchedule{Kind: "segment", Inner: in, Share: s.Share}, nil
	case nil:
		return nil, errors.New("schedule: none")
	}
	return nil, fmt.Errorf("schedule: a %T cannot be sent to a generator", s)
}

// maxWireDepth bounds the nesting of limits and segments.
const maxWireDepth = 4

// Build makes the schedule w describes, checking every field.
func (w *WireSchedule) Build() (Schedule, error) { return w.build(0) }

func (w *WireSchedule) build(depth int) (Schedule, error) {
	if w == nil {
		return nil, errors.New("schedule: none")
	}
	if depth > maxWireDepth {
		return nil, fmt.Errorf("schedule: nested more than %d deep", maxWireDepth)
	}
	switch w.Kind {
	case "constant":
		if _, err := parseRate(fmt.Sprint(w.Rate)); err != nil {
			return nil, fmt.Errorf("schedule constant: %w", err)
		}
		return Constant{Rate: w.Rate}, nil
	case "burst":
		if w.Size <= 0 || w.EveryNs <= 0 {
			return nil, fmt.Errorf("schedule burst: size %d every %d ns: want both positive", w.Size, w.EveryNs)
		}
		return Burst{Size: w.Size, Every: time.Duration(w.EveryNs)}, nil
	case "stages":
		return NewStages(w.Stages)
	case "offsets":
		if len(w.OffsetsNs) > MaxWireOffsets {
			return nil, fmt.Errorf("schedule: a trace of %d requests, more than %d", len(w.OffsetsNs), MaxWireOffsets)
		}
		o := make(Offsets, len(w.OffsetsNs))
		for i, n := range w.OffsetsNs {
			if n < 0 || (i > 0 && n < w.OffsetsNs[i-1]) {
				return nil, fmt.Errorf("schedule: trace offset %d (%d ns) is negative or earlier than the one before", i, n)
			}
			o[i] = time.Duration(n)
		}
		return o, nil
	case "poisson":
		return NewPoisson(w.Rate, w.Seed, time.Duration(w.HorizonNs), w.Requests)
	case "limit":
		if w.DurationNs < 0 || w.Requests < 0 {
			return nil, errors.New("schedule limit: negative")
		}
		in, err := w.Inner.build(depth + 1)
		if err != nil {
			return nil, err
		}
		return Limit{S: in, Duration: time.Duration(w.DurationNs), Requests: w.Requests}, nil
	case "segment":
		if err := w.Share.Validate(); err != nil {
			return nil, fmt.Errorf("schedule segment: %w", err)
		}
		in, err := w.Inner.build(depth + 1)
		if err != nil {
			return nil, err
		}
		return Segment{S: in, Share: w.Share}, nil
	}
	return nil, fmt.Errorf("schedule: unknown kind %q", w.Kind)
}
