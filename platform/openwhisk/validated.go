package openwhisk

// Validated says how this adapter was checked against the platform: against
// the real platform ("real@version") or a stand-in that follows its source
// ("stand-in@version"). The fingerprint carries it into the manifest and the
// report, so a reader knows how far to trust a figure.
const Validated = "real@apache/openwhisk master (1fae641a2), its standalone server built from source in Scala 2.13 with the Kubernetes container factory, on the real node: " +
	"deploy, raw-HTTP web actions, cold starts from the activation records (prewarm and container), the limits and 429, cleanup (deploy/openwhisk/node-test.sh, test-real.sh); " +
	"paging, memory refusals, 202 and /init failures also against a stand-in that follows its source (platform/openwhisk/openwhisk_test.go)"
