package results

// Efficiency is what a cell's successful invocations cost in resources:
// CPU-seconds and GB-seconds used (from the platform's resource samples
// over the cell) and allocated (each ready instance's limits × time,
// idle instances kept warm included), per million successful
// invocations, and, with the spec's price model, in money.
type Efficiency struct {
	// CPUSecondsUsed and GBSecondsUsed are the function's instances' use
	// over the cell; the Allocated ones its ready instances' limits over
	// the cell (absent without a limit: nothing was allocated as such).
	CPUSecondsUsed      float64  `json:"cpu_seconds_used"`
	GBSecondsUsed       float64  `json:"gb_seconds_used"`
	CPUSecondsAllocated *float64 `json:"cpu_seconds_allocated,omitempty"`
	GBSecondsAllocated  *float64 `json:"gb_seconds_allocated,omitempty"`
	// PerMillion are the same per million successful invocations.
	PerMillion EfficiencyPerMillion `json:"per_million"`
	// Samples is how many resource samples the figures come from.
	Samples int `json:"samples"`
	// Cost is the price model applied (absent without one).
	Cost *Cost `json:"cost,omitempty"`
	// Note says what is missing and why.
	Note string `json:"note,omitempty"`
}

// EfficiencyPerMillion is Efficiency per million successful invocations.
type EfficiencyPerMillion struct {
	CPUSecondsUsed      float64  `json:"cpu_seconds_used"`
	GBSecondsUsed       float64  `json:"gb_seconds_used"`
	CPUSecondsAllocated *float64 `json:"cpu_seconds_allocated,omitempty"`
	GBSecondsAllocated  *float64 `json:"gb_seconds_allocated,omitempty"`
}

// Cost is a cell's cost per million successful invocations under the
// spec's price model: what was used, and what was allocated.
type Cost struct {
	Currency            string   `json:"currency"`
	PerMillionUsed      float64  `json:"per_million_used"`
	PerMillionAllocated *float64 `json:"per_million_allocated,omitempty"`
}
