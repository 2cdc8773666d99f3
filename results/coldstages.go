package results

import "github.com/faasbench/faasbench/stats"

// ColdStage is one stage of the verified cold starts' start-up: from one of the platform's
// milestones (PhaseNames; "sent" for the request's send) to the next, its mean over the samples and
// the 95 % bootstrap interval of that mean (stats.MeanInterval).
type ColdStage struct {
	// To names the stage by the milestone that ends it; From is the one before ("sent" first).
	From   string  `json:"from"`
	To     string  `json:"to"`
	MeanMs float64 `json:"mean_ms"`
	// CILoMs and CIHiMs bound the mean (absent under stats.MinMeanSamples samples).
	CILoMs *float64 `json:"ci95_lo_ms,omitempty"`
	CIHiMs *float64 `json:"ci95_hi_ms,omitempty"`
	// Reversed counts the samples where To was seen before From: the platform's milestones are
	// stamped when faasbench's watch saw them, and two close ones can arrive out of order.
	Reversed int `json:"reversed,omitempty"`
}

// ColdStages split the verified cold starts into stages that add up: each stage's mean is over the
// same samples (those with every milestone the stages use: the milestones every verified sample
// has), so the means sum to the mean time to the last milestone (SumMs), which LatencyMs, the same
// samples' mean latency, bounds from above: what is left (Gap, a share of LatencyMs) is the reply's
// body after its first byte, or, where the platform gives no first byte, the rest of the call.
type ColdStages struct {
	Samples   int         `json:"samples"`
	Stages    []ColdStage `json:"stages"`
	SumMs     float64     `json:"sum_ms"`
	LatencyMs float64     `json:"latency_ms"`
	Gap       float64     `json:"gap"`
	// Method names how each stage's interval was made.
	Method string `json:"method"`
}

// StagesOf is the stage breakdown of samples' verified cold starts, nil when no milestone is common
// to all of those with phases. seed makes the intervals reproducible.
func StagesOf(samples []ColdSample, seed uint64) *ColdStages {
	var marks [][]*float64 // per verified sample with phases, its milestones (PhaseNames)
	var lat float64
	common := make([]bool, len(PhaseNames))
	for i := range common {
		common[i] = true
	}
	for _, s := range samples {
		if !s.Verified || s.Phases == nil {
			continue
		}
		m := s.Phases.Values()
		marks = append(marks, m)
		lat += s.LatencyMs
		for i, v := range m {
			common[i] = common[i] && v != nil
		}
	}
	var idx []int
	for i, ok := range common {
		if ok {
			idx = append(idx, i)
		}
	}
	if len(marks) == 0 || len(idx) == 0 {
		return nil
	}
	n := len(marks)
	cs := &ColdStages{Samples: n, LatencyMs: lat / float64(n), Method: stats.MethodBootstrapMean}
	from, prev := "sent", make([]float64, n)
	for k, i := range idx {
		st := ColdStage{From: from, To: PhaseNames[i]}
		d := make([]float64, n)
		var sum float64
		for j, m := range marks {
			at := *m[i]
			d[j] = at - prev[j]
			prev[j] = at
			sum += d[j]
			if d[j] < 0 {
				st.Reversed++
			}
		}
		st.MeanMs = sum / float64(n)
		if iv := stats.MeanInterval(d, seed+uint64(k)); iv != nil {
			st.CILoMs, st.CIHiMs = &iv.Lo, &iv.Hi
		}
		cs.Stages = append(cs.Stages, st)
		cs.SumMs += st.MeanMs
		from = PhaseNames[i]
	}
	if cs.LatencyMs > 0 {
		cs.Gap = (cs.LatencyMs - cs.SumMs) / cs.LatencyMs
	}
	return cs
}
