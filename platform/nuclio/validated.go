package nuclio

// Validated says how this adapter was checked against the platform: against
// the real platform ("real@version") or a stand-in that follows its source
// ("stand-in@version"). The fingerprint carries it into the manifest and the
// report, so a reader knows how far to trust a figure.
//
// make test's real-node tier runs the adapter against Nuclio built from its
// pinned source (deploy/shared/pins.tsv) and installed by its own chart
// with the autoscaler and DLX on (deploy/nuclio/up.sh).
const Validated = "real@nuclio 1.14.1 (f7573701a7cd: controller, dashboard, autoscaler, DLX, processor and Python wrapper), prometheus-adapter v0.12.0: deploy through the dashboard, scale, calls through the Service and straight at the processors, numWorkers, scale to zero and a cold start through the DLX, platform clean (deploy/node/test.sh); shell (C++) and Node.js runtimes: the real processor (deploy/nuclio/processor-test.sh) and the real node (examples/realnode/nuclio-runtimes.yaml); Go runtime (a plugin built against the processor's go.mod): the real processor (deploy/nuclio/processor-test.sh) and the real node (deploy/node/seed.sh nuclio: seed 003's Go cells)"
