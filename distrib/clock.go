package distrib

import (
	"errors"
	"time"
)

// ClockSample is one ping: the coordinator's CLOCK_REALTIME when it sent
// (T0) and received the pong (T1), and the agent's when it answered (TA).
type ClockSample struct{ T0, TA, T1 int64 }

// Offset is the estimate of an agent's clock against the coordinator's: the
// agent's CLOCK_REALTIME minus the coordinator's, within ± Uncertainty.
type Offset struct {
	OffsetNs      int64 `json:"offset_ns"`
	UncertaintyNs int64 `json:"uncertainty_ns"`
	RTTNs         int64 `json:"rtt_ns"`
	Samples       int   `json:"samples"`
}

// EstimateOffset takes the sample with the shortest round trip (the one
// least delayed on either way, as NTP's clock filter does) and assumes the
// agent answered at its midpoint: the true offset is then within RTT/2 of
// the estimate, whatever the asymmetry.
func EstimateOffset(samples []ClockSample) (Offset, error) {
	best := -1
	for i, s := range samples {
		if s.T1 < s.T0 {
			continue // the coordinator's clock stepped back: useless
		}
		if best < 0 || s.T1-s.T0 < samples[best].T1-samples[best].T0 {
			best = i
		}
	}
	if best < 0 {
		return Offset{}, errors.New("clock: no usable ping")
	}
	s := samples[best]
	rtt := s.T1 - s.T0
	return Offset{OffsetNs: s.TA - (s.T0 + rtt/2), UncertaintyNs: (rtt + 1) / 2, RTTNs: rtt, Samples: len(samples)}, nil
}

// ToAgent is coordinator instant t on the agent's clock.
func (o Offset) ToAgent(t time.Time) time.Time { return t.Add(time.Duration(o.OffsetNs)) }
