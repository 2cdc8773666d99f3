package report

import (
	"fmt"
	"strings"

	"github.com/faasbench/faasbench/results"
)

// stagesDetail words a coldstart key's stage breakdown (results.ColdStages): each stage's mean,
// with its 95 % interval when the key has one repetition, else the repetitions' median [range];
// then what they add up to against the mean latency. "" without stages.
func stagesDetail(cs []results.Cell) string {
	c0 := cs[0]
	if c0.Cold == nil || c0.Cold.Stages == nil || len(c0.Cold.Stages.Stages) == 0 {
		return ""
	}
	var parts []string
	for i, s := range c0.Cold.Stages.Stages {
		name := strings.ReplaceAll(s.From, "_", " ") + "→" + strings.ReplaceAll(s.To, "_", " ")
		if len(cs) == 1 {
			p := name + " " + fmtNum(s.MeanMs)
			if s.CILoMs != nil && s.CIHiMs != nil {
				p += fmt.Sprintf(" (95 %% CI %s–%s)", fmtNum(*s.CILoMs), fmtNum(*s.CIHiMs))
			}
			parts = append(parts, p)
			continue
		}
		var vs []float64
		for _, c := range cs {
			if c.Cold != nil && c.Cold.Stages != nil && i < len(c.Cold.Stages.Stages) && c.Cold.Stages.Stages[i].From == s.From && c.Cold.Stages.Stages[i].To == s.To {
				vs = append(vs, c.Cold.Stages.Stages[i].MeanMs)
			}
		}
		parts = append(parts, name+" "+aggregate(vs).String())
	}
	n := 0
	var sums, lats, gaps []float64
	for _, c := range cs {
		if c.Cold != nil && c.Cold.Stages != nil {
			n += c.Cold.Stages.Samples
			sums, lats, gaps = append(sums, c.Cold.Stages.SumMs), append(lats, c.Cold.Stages.LatencyMs), append(gaps, 100*c.Cold.Stages.Gap)
		}
	}
	return fmt.Sprintf("; its stages, mean ms over %d cold starts: %s; they add up to %s of the mean latency %s ms (%s %% left after the last stage)",
		n, strings.Join(parts, ", "), aggregate(sums), aggregate(lats), aggregate(gaps))
}
