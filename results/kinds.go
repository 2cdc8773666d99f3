package results

import (
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/stats"
)

// BatchResult is a batch cell's figures (seed 000's coordinator runs).
type BatchResult struct {
	load.BatchFigures
	// InFlight is the bound on requests in flight (K).
	InFlight  int     `json:"in_flight"`
	DurationS float64 `json:"duration_s"`
	// ItemsPerS counts items that succeeded; MiBPerS their request bytes.
	ItemsPerS float64 `json:"items_per_s"`
	MiBPerS   float64 `json:"mib_per_s"`
}

// ColdSample is one iteration of a coldstart cell.
type ColdSample struct {
	Iteration int     `json:"iteration"`
	LatencyMs float64 `json:"latency_ms"`
	Status    int     `json:"status"`
	// The two sources: the function's own cold flag and a new instance id,
	// and the platform's record of an instance it started.
	ColdFlag        bool   `json:"cold_flag"`
	NewInstance     bool   `json:"new_instance"`
	PlatformStarted bool   `json:"platform_started"`
	Kind            string `json:"kind"`
	Verified        bool   `json:"verified"`
	// VerifiedBy is set where the function's replies cannot carry its
	// source (platform.Headerless): the platform's record alone judged it.
	VerifiedBy string `json:"verified_by,omitempty"`
	// Breakdown: waiting for an instance (the platform's figure, when it
	// gives one), the handler, and the rest (runtime start-up, transport).
	WaitMs    *float64 `json:"wait_ms"`
	HandlerMs *float64 `json:"handler_ms"`
	// IdleS is the idle time before the call (idle sweep only).
	IdleS float64 `json:"idle_s,omitempty"`
	// Phases: when each step of the start happened, in ms after the
	// request was sent (verified samples; absent where unknown).
	Phases *ColdPhases `json:"phases,omitempty"`
	// PullMs is how long the node took to pull the instance's image, as it
	// reported (kind image-pull).
	PullMs *float64 `json:"pull_ms,omitempty"`
}

// ColdPhases split a cold call by the instance's start-up, each in ms
// after the request was sent: the platform accepted the request (where it
// stamps that itself: OpenWhisk's controller; its queues before the
// instance's creation come after), the platform created the instance (a
// pod, a process), Kubernetes bound it to a node, its containers were
// running, it was ready (for Knative: queue-proxy's readiness probe passed;
// for OpenWhisk: /init done), and the reply's first byte arrived. The platform's steps are stamped when
// faasbench's watch saw them, so each includes the watch's delivery delay
// (milliseconds on one machine).
type ColdPhases struct {
	AcceptedMs  *float64 `json:"accepted_ms,omitempty"`
	CreatedMs   *float64 `json:"created_ms,omitempty"`
	ScheduledMs *float64 `json:"scheduled_ms,omitempty"`
	RunningMs   *float64 `json:"running_ms,omitempty"`
	ReadyMs     *float64 `json:"ready_ms,omitempty"`
	FirstByteMs *float64 `json:"first_byte_ms,omitempty"`
}

// PhaseNames are ColdResult.PhasesMs's keys, in the order of a start.
var PhaseNames = []string{"accepted", "created", "scheduled", "running", "ready", "first_byte"}

// Values lists p's phases by PhaseNames (nil where unknown).
func (p ColdPhases) Values() []*float64 {
	return []*float64{p.AcceptedMs, p.CreatedMs, p.ScheduledMs, p.RunningMs, p.ReadyMs, p.FirstByteMs}
}

// ColdResult is a coldstart cell's figures. Only verified samples are in
// ColdMs; samples that were not cold by both sources are kept, flagged.
type ColdResult struct {
	Iterations int `json:"iterations"`
	// Verified counts the forced calls cold by both sources (the function's
	// flag on a new instance, the platform's record of starting it for the
	// call); NotVerified the others.
	Verified    int `json:"verified"`
	NotVerified int `json:"not_verified"`
	// FlaggedCold, in an idle sweep, counts the calls the function itself
	// said were cold (its flag alone: not verified by the platform).
	FlaggedCold int               `json:"flagged_cold,omitempty"`
	Kinds       map[string]int64  `json:"kinds"`
	ColdMs      stats.Percentiles `json:"cold_ms"`
	// WarmMs: the warm calls after each cold one that an instance already seen answered; those the function
	// said were cold (a new instance's first request: the platform did not reuse the warm one) are left
	// out of it and counted in WarmCold, their latencies in WarmColdMs.
	WarmMs     stats.Percentiles  `json:"warm_ms"`
	WarmCold   int                `json:"warm_cold,omitempty"`
	WarmColdMs *stats.Percentiles `json:"warm_cold_ms,omitempty"`
	// Per kind of cold start: latency of the verified samples of that kind.
	ColdByKindMs map[string]stats.Percentiles `json:"cold_by_kind_ms"`
	WaitMs       stats.Percentiles            `json:"wait_ms"`
	HandlerMs    stats.Percentiles            `json:"handler_ms"`
	// PhasesMs: over the verified samples, each phase of the start
	// (PhaseNames) in ms after the request was sent.
	PhasesMs map[string]stats.Percentiles `json:"phases_ms,omitempty"`
	// Stages: the verified cold starts split into stages between the platform's milestones, each
	// with its mean and that mean's interval, adding up (StagesOf).
	Stages *ColdStages `json:"stages,omitempty"`
	// PullMs is the image pulls' durations (coldstart.evict_image).
	PullMs *stats.Percentiles `json:"pull_ms,omitempty"`
	// ColdShare is, in an idle sweep, the share of calls after IdleS that were cold.
	IdleS     float64      `json:"idle_s,omitempty"`
	ColdShare *float64     `json:"cold_share,omitempty"`
	Samples   []ColdSample `json:"samples"`
	// ForcedBy says how the platform made calls cold.
	ForcedBy string `json:"forced_by"`
	// StartupOnPath: the platform started each cold instance because of the
	// measured request, which waited for it (false: the instance was started
	// before the request, which was only its first; nil: not forced).
	StartupOnPath *bool `json:"startup_on_path,omitempty"`
}

// Breakdown splits the mean latency of successful requests (from the
// actual send) into where it went, from the gateway's stamps and the
// handler's: the four parts add up to the mean.
type Breakdown struct {
	// Outside: client to gateway and back, and the gateway's own proxying.
	OutsideMs float64 `json:"outside_ms"`
	// GatewayQueueMs: waiting at the gateway for an instance.
	GatewayQueueMs float64 `json:"gateway_queue_ms"`
	// InstanceMs: gateway to instance and back, minus the handler (the
	// runtime's HTTP layer and the hop).
	InstanceMs float64 `json:"instance_ms"`
	// InstanceSetupMs and InstanceReplyMs split InstanceMs where the
	// gateway's and the handler's clocks are one (the local platform): the
	// request's way from the gateway into the handler, and the reply's way
	// back (seed 003 Fig 10's function initiation and response delay).
	InstanceSetupMs *float64 `json:"instance_setup_ms,omitempty"`
	InstanceReplyMs *float64 `json:"instance_reply_ms,omitempty"`
	// HandlerMs: the function's own code.
	HandlerMs float64 `json:"handler_ms"`
	// TotalMs is the mean the parts add up to.
	TotalMs float64 `json:"total_ms"`
}

// ScalingSample is one observation of an autoscale cell.
type ScalingSample struct {
	T        float64 `json:"t"` // seconds since the load started
	Desired  int     `json:"desired"`
	Ready    int     `json:"ready"`
	CPU      float64 `json:"cpu"` // cores, all instances
	MemoryMB float64 `json:"memory_mb"`
	Queued   int64   `json:"queued"`
	Inflight int64   `json:"inflight"`
}

// ScalingResult is an autoscale cell's derived figures (nil: never happened).
type ScalingResult struct {
	Schedule string  `json:"schedule"`
	LoadS    float64 `json:"load_s"`
	// Times from the load's start, and from its end for the scale-down.
	FirstScaleUpS *float64           `json:"first_scale_up_s"`
	MaxReplicas   int                `json:"max_replicas"`
	TimeToMaxS    *float64           `json:"time_to_max_s"`
	ScaleDownS    *float64           `json:"scale_down_s"`
	ReplicasAtEnd int                `json:"replicas_at_end"`
	ErrorsScaling int64              `json:"errors_while_scaling"`
	RequestsShare map[string]float64 `json:"requests_share"`
	Samples       []ScalingSample    `json:"samples"`
	// Elasticity is BUNGEE's metrics (open loop with autoscale.instance_rps).
	Elasticity *Elasticity `json:"elasticity,omitempty"`
}
