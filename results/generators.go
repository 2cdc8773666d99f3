package results

// Generator is one of the processes that sent a cell's load when it was
// split over several (load.generators): where it ran, its clock against the
// coordinator's, how late it began, what it sent, its own CPU, and what went
// wrong. A cell driven by one generator has none.
type Generator struct {
	Index int    `json:"index"`
	Host  string `json:"host,omitempty"`
	CPUs  string `json:"cpus,omitempty"`
	// ClockOffsetMs is the generator's CLOCK_REALTIME minus the
	// coordinator's, within ± ClockUncertaintyMs (half the shortest ping's
	// round trip).
	ClockOffsetMs      float64 `json:"clock_offset_ms"`
	ClockUncertaintyMs float64 `json:"clock_uncertainty_ms"`
	// LateMs is how late it began its share against the common start.
	LateMs   float64 `json:"late_ms"`
	Requests int64   `json:"requests"`
	Cores    int     `json:"cores"`
	// CPUMax is its highest CPU use in one second, in cores.
	CPUMax float64 `json:"cpu_max"`
	Error  string  `json:"error,omitempty"`
}
