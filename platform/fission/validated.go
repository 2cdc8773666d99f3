package fission

// Validated says how this adapter was checked against the platform: against
// the real platform ("real@version") or a stand-in that follows its source
// ("stand-in@version"). The fingerprint carries it into the manifest and the
// report, so a reader knows how far to trust a figure.
const Validated = "real@fission v1.27.0 (1e1401cdecd7, built from source) on the real node: container, newdeploy and poolmgr through the router, cold starts of kind pod and specialisation (deploy/node/test.sh, deploy/fission/test-real.sh), its own Python, Node.js and Go environments (Go built by its Go builder: examples/realnode/fission-go-env.yaml); the fast tests' stand-in follows it (platform/fission/standin_kube_test.go)"
