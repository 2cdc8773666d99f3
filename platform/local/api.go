package local

// The control API of the local platform daemon, modelled on the OpenFaaS
// gateway's system API:
//
//	GET    /system/health                 200 when serving
//	GET    /system/functions              []FunctionStatus
//	POST   /system/functions              DeployRequest → FunctionStatus (once ready)
//	DELETE /system/functions/{name}       removes the function and its instances
//	POST   /system/scale-function/{name}  ScaleRequest → FunctionStatus (once reached)
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
}

// ScaleRequest sets the replica count.
type ScaleRequest struct {
	Replicas int `json:"replicas"`
}

// FunctionStatus describes a deployed function.
type FunctionStatus struct {
	Name      string           `json:"name"`
	Workload  string           `json:"workload"`
	Language  string           `json:"language"`
	Replicas  int              `json:"replicas"`
	Ready     int              `json:"ready"`
	Restarts  int              `json:"restarts"`
	Instances []InstanceStatus `json:"instances"`
}

// InstanceStatus describes one instance process.
type InstanceStatus struct {
	ID   string `json:"id"`
	PID  int    `json:"pid"`
	Addr string `json:"addr"`
	// StartupNs is the time from process start to its readiness signal.
	StartupNs int64 `json:"startup_ns"`
}

type errorBody struct {
	Error string `json:"error"`
}
