package nuclio

// Validated says how this adapter was checked against the platform: against
// the real platform ("real@version") or a stand-in that follows its source
// ("stand-in@version"). The fingerprint carries it into the manifest and the
// report, so a reader knows how far to trust a figure.
const Validated = "stand-in@nuclio 1.14.1 on the real control plane: numWorkers and the dashboard's project check follow its source; the controller is a stand-in (platform/nuclio/standin_kube_test.go)"
