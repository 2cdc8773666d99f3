package openfaas

// Validated says how this adapter was checked against the platform, by edition: against the real
// platform ("real@version") or a stand-in that follows its source ("stand-in@version"). The fingerprint
// carries it into the manifest and the report, so a reader knows how far to trust a figure.
//
// Only OpenFaaS of 2022-10 is run for real: from 2024 on OpenFaaS CE is under an EULA that allows no
// copies or derivative works (../shared/upstream/README.md), so what CE does since then is the
// stand-in's, read from the newer source.
func Validated(edition string) string {
	if edition == EditionCE2022 {
		return ValidatedCE2022
	}
	return ValidatedStandIn
}

// ValidatedCE2022: make test's real-node tier runs the adapter against these, built from their pinned
// source (deploy/shared/pins.tsv) and installed by their own chart (deploy/openfaas/up.sh).
const ValidatedCE2022 = "real@openfaas/faas 208b1b22 (gateway, basic-auth), faas-netes 98474109 (2022-10), of-watchdog 0.11.6, Prometheus v0.316.0, AlertManager v0.35.0: deploy, scale, redeploy, gateway and direct calls, scale from zero, AlertManager scaling, platform clean (deploy/node/test.sh, platform/openfaas/openfaas_realnode_test.go)"

// ValidatedStandIn: CE (2024 on), Standard and Enterprise.
const ValidatedStandIn = "stand-in@openfaas/faas 0.27.14 (8d803bf9), faas-netes 0.18.17 (662ce9ce), of-watchdog 0.11.6: the stand-in gateway follows their deploy, update, read, scale, namespace, scale-from-zero and invoke code file by file (platform/openfaas/gateway_kube_test.go); the 2022 edition runs for real (edition ce-2022)"
