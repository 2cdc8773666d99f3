package fission

// Validated says how this adapter was checked against the platform: against
// the real platform ("real@version") or a stand-in that follows its source
// ("stand-in@version"). The fingerprint carries it into the manifest and the
// report, so a reader knows how far to trust a figure.
const Validated = "stand-in@fission v1.27.0 on the real control plane: the executor's HPA, reaper, namespaces and requestsPerPod follow its source (platform/fission/standin_kube_test.go)"
