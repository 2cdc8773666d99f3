package local

import (
	"time"

	"github.com/faasbench/faasbench/internal/cgroup"
)

// The control API of the local platform daemon, modelled on the OpenFaaS
// gateway's system API:
//
//	GET    /system/health                 200 when serving
//	GET    /system/functions              []FunctionStatus
//	POST   /system/functions              DeployRequest → FunctionStatus (once ready)
//	DELETE /system/functions/{name}       removes the function and its instances
//	POST   /system/scale-function/{name}  ScaleRequest → FunctionStatus (once reached)
//	GET    /system/info                   Info (the daemon's files)
//	POST   /system/shutdown               stops every instance and exits
//	ANY    /function/{name}[/path]        invokes the function (the gateway)
//
// Errors are JSON {"error": "..."} with a 4xx/5xx status.

// DeployRequest deploys a function.
type DeployRequest struct {
	Name     string            `json:"name"`
	Workload string            `json:"workload"`
	Language string            `json:"language"`
	Replicas int               `json:"replicas"`
	Env      map[string]string `json:"env,omitempty"`
	// SecretEnv names the Env entries whose values are secrets: they are
	// masked in what the platform says of the function (a log's tail in an
	// error) before anything is cut.
	SecretEnv []string `json:"secret_env,omitempty"`
	// Mode: http (persistent process, default) or fork (a process per request).
	Mode string `json:"mode,omitempty"`
	// Workers per instance (python: pre-forked processes sharing the socket).
	Workers int `json:"workers,omitempty"`
	// Concurrency is the per-instance limit (0: none); requests over it
	// wait in a queue of QueueSize for up to QueueTimeoutMs: each
	// instance's own (Queue "instance", the default) or one in front of
	// the function's instances (Queue "function").
	Concurrency    int    `json:"concurrency,omitempty"`
	Queue          string `json:"queue,omitempty"`
	QueueSize      int    `json:"queue_size,omitempty"`
	QueueTimeoutMs int64  `json:"queue_timeout_ms,omitempty"`
	// Routing: round-robin (default), least-outstanding or pinned.
	Routing   string `json:"routing,omitempty"`
	Rebalance bool   `json:"rebalance,omitempty"`
	// MaxBodyBytes refuses larger request bodies with 413 (0: no limit),
	// as OpenWhisk (1 MB) and Nuclio (4 MiB) do.
	MaxBodyBytes int64 `json:"max_body_bytes,omitempty"`
	// TimeoutMs bounds one invocation at the gateway (504 after it).
	TimeoutMs int64 `json:"timeout_ms,omitempty"`
	// ScaleToZeroAfterMs: with no request for this long, the function goes
	// to zero instances (0: never). A request to a function at zero waits
	// up to ColdStartTimeoutMs while an instance starts.
	ScaleToZeroAfterMs int64 `json:"scale_to_zero_after_ms,omitempty"`
	ColdStartTimeoutMs int64 `json:"cold_start_timeout_ms,omitempty"`
	// MemoryMB and CPUs limit each instance through cgroups (0: no limit).
	MemoryMB int64   `json:"memory_mb,omitempty"`
	CPUs     float64 `json:"cpus,omitempty"`
	// CPUSet pins each instance to these CPUs (a kernel CPU list, "0-1");
	// PidsMax bounds its processes and threads (0: DefaultPidsMax).
	CPUSet  string `json:"cpuset,omitempty"`
	PidsMax int64  `json:"pids_max,omitempty"`
	// Autoscale, when set, lets the platform choose the replica count.
	Autoscale *Autoscale `json:"autoscale,omitempty"`
}

// Defaults of the queue and the invocation timeout: seed 003 set a 50K
// queue and a 10 s timeout on every platform it compared.
const (
	DefaultQueueSize    = 50000
	DefaultQueueTimeout = 10 * time.Second
	DefaultTimeout      = 5 * time.Minute
	// DefaultColdStartTimeout bounds the wait for an instance at zero.
	DefaultColdStartTimeout = time.Minute
)

// ScaleRequest sets the replica count.
type ScaleRequest struct {
	Replicas int `json:"replicas"`
}

// FunctionStatus describes a deployed function.
type FunctionStatus struct {
	Name string `json:"name"`
	// Started lists every instance start of the function, oldest first
	// (bounded to the last 1000): the platform's own cold-start record.
	Started  []StartRecord `json:"started"`
	Workload string        `json:"workload"`
	Language string        `json:"language"`
	Replicas int           `json:"replicas"`
	Ready    int           `json:"ready"`
	Restarts int           `json:"restarts"`
	// OOMKills counts instances killed for exceeding their memory limit.
	OOMKills int `json:"oom_kills"`
	// Queued is the number of requests waiting for a free instance slot.
	Queued    int64            `json:"queued"`
	Instances []InstanceStatus `json:"instances"`
	// Warnings say what the platform could not do as asked (e.g. limits
	// without usable cgroups).
	Warnings []string `json:"warnings,omitempty"`
}

// InstanceStatus describes one instance process.
type InstanceStatus struct {
	ID   string `json:"id"`
	PID  int    `json:"pid"`
	Addr string `json:"addr"`
	// Inflight is the number of requests the gateway has in flight to it.
	Inflight int64 `json:"inflight"`
	// StartupNs is the time from process start to its readiness signal.
	StartupNs int64 `json:"startup_ns"`
	// StartedUnixNs is when the process was started (wall clock).
	StartedUnixNs int64 `json:"started_unix_ns"`
	// Usage is the cgroup accounting of the instance (all its processes),
	// when cgroups are in use.
	Usage *cgroup.Usage `json:"usage,omitempty"`
}

type errorBody struct {
	Error string `json:"error"`
	// Refused: what the spec asked cannot be done here (platform.ErrRefused
	// on the client's side: the run ends with exit 2).
	Refused bool `json:"refused,omitempty"`
}

// StartRecord is one instance start.
type StartRecord struct {
	ID            string `json:"id"`
	StartedUnixNs int64  `json:"started_unix_ns"`
	ReadyUnixNs   int64  `json:"ready_unix_ns"`
	// Reason: deploy, scale, cold-start (a request found no instance), or
	// restart (an instance died).
	Reason string `json:"reason"`
}

// Event is one change of a function's instances (GET /system/events).
type Event struct {
	UnixNs   int64  `json:"unix_ns"`
	Function string `json:"function"`
	Instance string `json:"instance,omitempty"`
	Kind     string `json:"kind"` // starting, ready, terminating, exited
	Reason   string `json:"reason,omitempty"`
	Desired  int    `json:"desired"`
	Ready    int    `json:"ready"`
}
