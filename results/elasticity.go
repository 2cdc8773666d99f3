package results

// Elasticity is an autoscale cell's BUNGEE metrics (Herbst et al., SPEC
// RG, "Ready for Rain? A View from SPEC Research on the Future of Cloud
// Metrics" and the BUNGEE benchmark): each second of the load, the
// instances the offered demand required (demand ÷ one instance's
// capacity, rounded up) against those ready. Shares are percent of the
// load's seconds.
type Elasticity struct {
	InstanceRPS float64 `json:"instance_rps"`
	Seconds     int     `json:"seconds"`
	// AccuracyUnder and AccuracyOver: the mean shortfall and excess,
	// relative to the required count (θU, θO).
	AccuracyUnder float64 `json:"accuracy_under_pct"`
	AccuracyOver  float64 `json:"accuracy_over_pct"`
	// TimeshareUnder and TimeshareOver: the share of seconds with too few
	// and too many instances (τU, τO).
	TimeshareUnder float64 `json:"timeshare_under_pct"`
	TimeshareOver  float64 `json:"timeshare_over_pct"`
	// Instability: the share of seconds in which supply and demand did not
	// move the same way (υ).
	Instability float64 `json:"instability_pct"`
	// PeakRequired is the most instances the demand required; the times
	// are from the load's start to the first instance added, and to
	// PeakRequired ready (absent: never).
	PeakRequired   int      `json:"peak_required"`
	FirstNewS      *float64 `json:"first_new_instance_s,omitempty"`
	ToRequiredS    *float64 `json:"to_required_s,omitempty"`
	RequiredSeries []int    `json:"required"`
	SupplySeries   []int    `json:"supply"`
}
