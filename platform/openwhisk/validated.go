package openwhisk

// Validated says how this adapter was checked against the platform: against
// the real platform ("real@version") or a stand-in that follows its source
// ("stand-in@version"). The fingerprint carries it into the manifest and the
// report, so a reader knows how far to trust a figure.
const Validated = "stand-in@apache/openwhisk master (1fae641a2) as a test server: limits, Docker pulls, activation paging and annotations follow its source (platform/openwhisk/openwhisk_test.go)"
