package results

// Footprint is the platform's own components' use (its gateway,
// controllers, autoscaler, activator: not the functions' instances) over a
// window: idle, before any cell, or under a cell's load.
type Footprint struct {
	// Seconds is the time the samples cover; Samples how many sampling
	// intervals that is.
	Seconds float64 `json:"seconds"`
	Samples int     `json:"samples"`
	// CPUCores is the mean CPU over the window (every component together),
	// CPUSeconds its total; MemoryMiB the mean working set.
	CPUCores   float64 `json:"cpu_cores"`
	CPUSeconds float64 `json:"cpu_seconds"`
	MemoryMiB  float64 `json:"memory_mib"`
	// Components are the same per component, by name.
	Components []ComponentFootprint `json:"components"`
	// PerMillionCPUSeconds is a cell's platform CPU-seconds per million
	// successful invocations (absent idle, or without a success).
	PerMillionCPUSeconds *float64 `json:"per_million_cpu_seconds,omitempty"`
	// Note says when the CPU figure is not to be trusted: the components'
	// CPU counters did not move in most samples (a source that refreshes
	// less often than the window: the kubelets' summary, about every 10 s).
	Note string `json:"note,omitempty"`
}

// ComponentFootprint is one component's mean use over a Footprint's window.
type ComponentFootprint struct {
	Component string  `json:"component"`
	CPUCores  float64 `json:"cpu_cores"`
	MemoryMiB float64 `json:"memory_mib"`
}
