package kubeless

// Validated says how this adapter was checked against the platform: against
// the real platform ("real@version") or a stand-in that follows its source
// ("stand-in@version"). The fingerprint carries it into the manifest and the
// report, so a reader knows how far to trust a figure.
const Validated = "stand-in@kubeless af81a12 on the real control plane; the archived controller itself cannot run on Kubernetes 1.22 or later"
