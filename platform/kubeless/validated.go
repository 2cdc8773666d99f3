package kubeless

// Validated says against what this adapter was last validated: the real Kubeless v1.0.8 function controller
// (579f848), patched for Kubernetes 1.22+ (deploy/kubeless/kubeless.patch), with its 2019 Python runtime, on
// the real node (Kubernetes 1.34), in runtime and image mode; the unpatched controller cannot start on 1.22+.
const Validated = "real@kubeless 579f848 (v1.0.8, patched: deploy/kubeless/kubeless.patch) on Kubernetes 1.34, runtime python3.11 (kubeless-runtimes c30c833) and image mode"
