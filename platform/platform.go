// Package platform is the contract between faasbench and a FaaS platform.
// Deploying and invoking are separate: a Platform deploys, scales and removes
// functions and says where each one answers; the load engine then invokes it
// with plain HTTP and knows nothing of the platform.
package platform

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Function is what to deploy: a workload in one language under a name,
// with the settings several platforms share.
type Function struct {
	Name     string            `json:"name"`
	Workload string            `json:"workload"`
	Language string            `json:"language"`
	Replicas int               `json:"replicas"`
	Env      map[string]string `json:"env,omitempty"`
	// SecretEnv names the Env entries whose values are secrets (taken from
	// faasbench's own environment): Kubernetes adapters pass them through a
	// Secret, never as literal values in a pod spec.
	SecretEnv []string `json:"secret_env,omitempty"`
	// Concurrency is the most requests one instance serves at once (Knative
	// containerConcurrency, OpenFaaS max_inflight); 0: no limit.
	Concurrency int `json:"concurrency,omitempty"`
	// Mode is how an instance runs the function: "http" (a persistent
	// process, the default) or "fork" (a process per request, body on
	// stdin, reply on stdout: the classic OpenFaaS watchdog, Kubeless).
	Mode string `json:"mode,omitempty"`
	// Workers is the number of worker processes per instance (Nuclio
	// numWorkers, gunicorn workers); 0: the runtime's default (one
	// process; Python serves in threads), 1 or more: that many sync
	// workers, one request at a time each.
	Workers int `json:"workers,omitempty"`
	// MemoryMB and CPUs limit each instance (0: no limit).
	MemoryMB int64   `json:"memory_mb,omitempty"`
	CPUs     float64 `json:"cpus,omitempty"`
	// Settings are platform-specific (documented per platform).
	Settings map[string]string `json:"settings,omitempty"`
	// Server marks baseline.server's plain server of the workload (experiment.ServerOf), called at its
	// instance past the gateway: a platform whose own functions cannot be called so (OpenWhisk's actions)
	// runs it beside itself, not as one of them.
	Server bool `json:"server,omitempty"`
}

// Liveness is an optional capability: a platform whose parts can die under
// faasbench (the local platform's daemon) says so, so that a run stops
// with the reason instead of measuring connection errors to the end.
type Liveness interface {
	// Lost is nil while the platform runs, else why it is gone.
	Lost() error
}

// Restarter is an optional capability: restart the platform's own
// components (the local daemon's process; a cluster platform's controllers,
// autoscaler, activator and gateway), for repetitions that must not share a
// platform's warm state (spec between_repetitions: restart). Functions do not
// survive it: the caller removes them before and deploys them again after.
type Restarter interface {
	// Restart returns once the platform serves again, and says what it restarted.
	Restart(ctx context.Context) (string, error)
}

// ErrRefused marks a platform's refusal of what the spec asked (Knative's admission webhook
// denying an annotation): the user's input is at fault, not the run (the CLI exits 2).
var ErrRefused = errors.New("refused by the platform")

// HostRouter is an optional capability: a platform whose gateway routes by the Host header
// (Knative's ingress) says which host a function's requests carry; Endpoint is then the
// gateway's address.
type HostRouter interface {
	// FunctionHost is the Host header for name's requests ("" when Endpoint needs none).
	FunctionHost(ctx context.Context, name string) (string, error)
}

// PathReporter is an optional capability: a platform whose data path changes under load (Knative
// puts its activator in the path while a revision is scaled to zero or has no spare capacity)
// says what it is when a cell starts, for the cell's record.
type PathReporter interface {
	DataPath(ctx context.Context, name string) (string, error)
}

// ColdStarter is an optional capability: make the next call cold, and say
// which instances the platform itself started since a time, so a cold start
// can be verified from two sources (the function's cold flag and instance
// id, and the platform's own record).
type ColdStarter interface {
	// MakeCold ensures the next invocation of name needs a new instance. It
	// returns how coldness was forced and whether the platform's start-up of
	// that instance lies on the next request (for the run's record).
	MakeCold(ctx context.Context, name string) (Cold, error)
	// StartedSince lists the instances of name the platform started at or
	// after since, with the kind of cold start they were (process, pod, ...).
	StartedSince(ctx context.Context, name string, since time.Time) ([]StartedInstance, error)
}

// ImageEvicter is an optional capability: remove a function's image from
// the node that runs it, once its instances are gone, so that the next
// instance's start pulls it from the registry (the image-pull cold start,
// spec coldstart.evict_image).
type ImageEvicter interface {
	// EvictImage says what it removed, and from where.
	EvictImage(ctx context.Context, name string) (string, error)
}

// KindImagePull is the kind of a cold start whose instance's image was
// pulled for it (the platform's record says so: the kubelet's Pulled event).
const KindImagePull = "image-pull"

// Cold says how a ColdStarter made the next call cold.
type Cold struct {
	// How coldness was forced, in words, for the run's record.
	How string
	// OnPath: the platform starts the new instance because of the next
	// request and holds that request until it serves (scale from zero
	// through a gateway, an activator, an invoker creating a container). A
	// platform that cannot start an instance on demand (a plain Deployment,
	// Kubeless, OpenFaaS CE without scale_from_zero) starts it before the
	// request is sent: the request is the instance's first, but the start-up
	// is not in its latency, and the result says so.
	OnPath bool
	// Deployed: the instance was started by deploying the function anew
	// just before the request, which the platform then held until the
	// instance served (OpenFaaS CE, whose faas-netes raises any function at
	// 0 replicas back to 1, so nothing scales from zero there): the start-up
	// from the send on is in the request's latency; the sample's phases say
	// how much of it came before the send. With OnPath.
	Deployed bool
	// Via, when set, is where the request that meets the cold instance
	// must go instead of the function's endpoint: a component that raises
	// a function from zero and holds the request until an instance serves,
	// which the warm path does not pass (Nuclio's DLX: warm requests reach
	// the function's Service, the ingress sends them to the DLX only at
	// zero). With OnPath.
	Via *Route
}

// Route is another address for a function's requests: its scheme and host
// (and any path prefix) replace the endpoint's, the request's own path and
// query are kept, and Header is added to the request's headers.
type Route struct {
	URL    string
	Header map[string]string
}

// KindFirstRequest is the kind of a cold sample whose instance was started
// before the request was sent (Cold.OnPath false): the request was the
// instance's first, the start-up was not on it.
const KindFirstRequest = "first-request"

// KindSpecialisation is the kind of a cold sample whose instance was a
// warm, generic one (started before the request, as a pool keeps it) that
// the platform gave to the function because of the request: it fetched and
// loaded the function's code while it held the request (Fission's poolmgr).
// The instance's own start is not on the request; the platform vouches that
// the instance was not the function's when the iteration made it cold.
const KindSpecialisation = "specialisation"

// Begun is the earliest stamp of the start the platform recorded: its
// creation, or when the platform took the request when it records no
// creation.
func (s StartedInstance) Begun() time.Time {
	if s.Started.IsZero() {
		return s.Accepted
	}
	return s.Started
}

// KindPrewarm is the kind of a cold sample whose instance was a container
// the platform may have started before the request, generic for the
// function's runtime (OpenWhisk's prewarmed stem cells of a kind and
// memory), given the function's code on the request (/init): the platform's
// record does not say whether one was left in the pool or a container was
// created for it.
const KindPrewarm = "prewarm"

// ColdKindRefiner is an optional capability of a ColdStarter whose record
// cannot say the kind of a start but the instance that answered can: given
// the kind from the record and the instance id of the cold reply
// (X-Fb-Instance), it says the kind (OpenWhisk with the Kubernetes container
// factory: a stem cell's pod is named for it, so a start in one is told from
// one in a pod made for the activation).
type ColdKindRefiner interface {
	RefineColdKind(kind, instance string) string
}

// KindAfterDeploy is the kind of a cold sample whose instance was started by
// a deploy made just before the request (Cold.Deployed).
const KindAfterDeploy = "after-deploy"

// StartedInstance is the platform's record of one instance start.
type StartedInstance struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Started is when the instance was created (zero: the platform does not
	// record it, and Accepted stands for the start).
	Started time.Time `json:"started,omitzero"`
	// Accepted is when the platform took the request the instance was started
	// for, by its own stamp (OpenWhisk: the activation's start − waitTime);
	// its queues before the creation come after.
	Accepted time.Time `json:"accepted,omitzero"`
	// Ready is when it could first serve (zero: not yet).
	Ready time.Time `json:"ready"`
	// Scheduled is when a pod was seen bound to a node, Running when its
	// containers were all seen running (zero: not a pod, or not seen).
	Scheduled time.Time `json:"scheduled,omitzero"`
	Running   time.Time `json:"running,omitzero"`
	// Pull is how long the image pull took, as the node reported it (kind
	// image-pull only).
	Pull time.Duration `json:"pull,omitempty"`
}

// ReplicaEvent is one change of a function's instances. At is when
// faasbench learnt of it, on the load engine's clock; Reported is when the
// platform says it happened, when it says so (Kubernetes object timestamps
// have a resolution of one second).
type ReplicaEvent struct {
	At       time.Time `json:"at"`
	Reported time.Time `json:"reported,omitzero"`
	Function string    `json:"function"`
	Instance string    `json:"instance,omitempty"`
	// Kind: scaled (the desired count changed), starting, ready,
	// terminating, exited.
	Kind    string `json:"kind"`
	Reason  string `json:"reason,omitempty"`
	Desired int    `json:"desired"`
	Ready   int    `json:"ready"`
	// Pending instances are starting; Terminating ones are stopping.
	Pending     int `json:"pending,omitempty"`
	Terminating int `json:"terminating,omitempty"`
}

// ReplicaWatcher is an optional capability: the replica timeline.
type ReplicaWatcher interface {
	// ReplicaEvents returns the events of name after since, oldest first.
	ReplicaEvents(ctx context.Context, name string, since time.Time) ([]ReplicaEvent, error)
}

// InstanceUsage is one instance's resource accounting at a moment.
type InstanceUsage struct {
	Instance    string `json:"instance"`
	CPUNs       int64  `json:"cpu_ns"` // cumulative CPU time
	MemoryBytes int64  `json:"memory_bytes"`
	Inflight    int64  `json:"inflight"`
}

// FunctionUsage is a function's instances and queue at a moment.
type FunctionUsage struct {
	At        time.Time       `json:"at"`
	Instances []InstanceUsage `json:"instances"`
	// Queued is the number of requests waiting for a free instance.
	Queued int64 `json:"queued"`
}

// HostUsage is one host's use at a moment: a node of a cluster, or the CPU
// set the local platform runs on (the studies' per-invoker and per-node
// CPU and memory figures).
type HostUsage struct {
	Host string `json:"host"`
	// CPUs is the host's capacity in cores; CPUNs its cumulative busy CPU
	// time (every core together).
	CPUs  float64 `json:"cpus"`
	CPUNs int64   `json:"cpu_ns"`
	// MemoryBytes is what is in use (the node's working set; on the local
	// platform the machine's total less what it has available), of
	// MemoryTotalBytes.
	MemoryBytes      int64 `json:"memory_bytes"`
	MemoryTotalBytes int64 `json:"memory_total_bytes"`
}

// HostSampler is an optional capability: every host's use now.
type HostSampler interface {
	SampleHosts(ctx context.Context) ([]HostUsage, error)
}

// ComponentUsage is one of the platform's own processes or pods (its
// gateway, controller, autoscaler, activator...), not a function's: the
// platform's footprint.
type ComponentUsage struct {
	At        time.Time `json:"at"`
	Component string    `json:"component"`
	Instance  string    `json:"instance"`
	// CPUNs is cumulative CPU time; MemoryBytes the working set (RSS).
	CPUNs       int64 `json:"cpu_ns"`
	MemoryBytes int64 `json:"memory_bytes"`
}

// ComponentSampler is an optional capability: the platform's own
// components' use now (its footprint idle and under load).
type ComponentSampler interface {
	SampleComponents(ctx context.Context) ([]ComponentUsage, error)
}

// ResourceSampler is an optional capability: per-instance usage now.
type ResourceSampler interface {
	SampleResources(ctx context.Context, name string) (FunctionUsage, error)
}

// Headerless is an optional capability: the reason a function's replies
// cannot carry the function contract's X-Fb-Instance header ("": they can).
// OpenFaaS's classic watchdog forks the function for every request and
// sends back only what it wrote: the run's probe then takes the workload's
// response check as the function's own answer, and the cells count no
// instances.
type Headerless interface {
	Headerless(name string) string
}

// QueryCarrier is an optional capability: the request header, and its
// value, in which a function's platform passes it a request's query string
// when the query itself never reaches the function (header "": it does).
// Nuclio's shell runtime runs the command with the body on its stdin and the
// X-Nuclio-Arguments header appended to its command line, never with the
// URL's query: a cell's query is sent in that header too (shell-quoted), as
// a Nuclio user passes a shell function its per-request input.
type QueryCarrier interface {
	QueryHeader(name, query string) (header, value string)
}

// LoadShape is the most load a run's spec offers one function: the largest
// closed-loop concurrency and the largest open-loop rate (req/s) of its
// cells (0: none of that model).
type LoadShape struct {
	Concurrency int
	Rate        float64
}

// LoadChecker is a platform with limits of its own on the load (OpenWhisk's
// invocations per minute and concurrent invocations per namespace): it
// says, before any load, what of the spec's load they will refuse, in its
// own numbers, as run warnings; an error (platform.ErrRefused) stops the
// run before anything starts.
type LoadChecker interface {
	CheckLoad(ctx context.Context, l LoadShape) error
}

// NotReadyReporter is a platform that answers an accepted request with a
// status of its own when it has no result for it yet (OpenWhisk: 202
// "Response not yet ready" once its blocking wait is over): the load
// counts such replies as class not-ready, never as successes.
type NotReadyReporter interface {
	NotReadyStatus() int
}

// Explainer is an optional capability: what the platform's own components and the function's pods
// say about a function that failed (its probe unanswered), in their words (log lines), for the error
// the run ends with. "" when there is nothing to add.
type Explainer interface {
	Explain(ctx context.Context, name string) string
}

// DirectCaller is an optional capability: the address of each instance,
// so a function can be called without the platform's gateway (seed 003's
// gateway vs direct call).
type DirectCaller interface {
	DirectEndpoints(ctx context.Context, name string) ([]string, error)
}

// Platform deploys functions and says where they answer.
type Platform interface {
	// Name is the registry name ("local", "openfaas", ...).
	Name() string
	// Deploy creates the function and returns once Replicas instances are ready.
	Deploy(ctx context.Context, fn Function) error
	// Scale sets the replica count and returns once it is reached.
	Scale(ctx context.Context, name string, replicas int) error
	// Endpoint is the URL that invokes the function.
	Endpoint(ctx context.Context, name string) (string, error)
	// Remove deletes the function and everything created for it.
	Remove(ctx context.Context, name string) error
	// Close removes whatever is left and releases the platform.
	Close(ctx context.Context) error
}

// Fingerprinter is an optional capability: facts about the platform for the
// run's manifest (versions, settings, CPU split).
type Fingerprinter interface {
	Fingerprint(ctx context.Context) (map[string]any, error)
}

// CPUCapacity is an optional capability: the CPU the platform's functions can use, in cores (on Kubernetes the
// allocatable CPU of the nodes that take pods, not the host's), for figures that set offered work against it.
type CPUCapacity interface {
	FunctionCores(ctx context.Context) (float64, error)
}

// Config is what a Factory gets.
type Config struct {
	// RunID marks everything the platform creates, so leftovers can be found.
	RunID string
	// WorkloadsDir is the root of the workload catalogue.
	WorkloadsDir string
	// WorkDir is where the platform may keep logs and build products.
	WorkDir string
	// Options are the spec's platform options, validated by the factory.
	Options map[string]any
}

// Factory creates a platform.
type Factory func(ctx context.Context, cfg Config) (Platform, error)

// Registry maps platform names to factories. It holds no global state: the
// CLI builds one and passes it down.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// ErrUnknown is returned for a platform name nobody registered.
var ErrUnknown = errors.New("unknown platform")

// Register adds a factory; registering a name twice is an error.
func (r *Registry) Register(name string, f Factory) error {
	if name == "" || f == nil {
		return errors.New("platform: register needs a name and a factory")
	}
	if _, dup := r.factories[name]; dup {
		return fmt.Errorf("platform: %q registered twice", name)
	}
	r.factories[name] = f
	return nil
}

// Has reports whether name is registered.
func (r *Registry) Has(name string) bool { _, ok := r.factories[name]; return ok }

// Names lists the registered platforms, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.factories))
	for n := range r.factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// New creates the platform called name.
func (r *Registry) New(ctx context.Context, name string, cfg Config) (Platform, error) {
	f, ok := r.factories[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknown, name, r.Names())
	}
	p, err := f(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("platform %s: %w", name, err)
	}
	return p, nil
}
