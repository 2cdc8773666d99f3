package openfaas

// Validated says how this adapter was checked against the platform: against
// the real platform ("real@version") or a stand-in that follows its source
// ("stand-in@version"). The fingerprint carries it into the manifest and the
// report, so a reader knows how far to trust a figure.
const Validated = "stand-in@openfaas/faas 0.27.14 (8d803bf9), faas-netes 0.18.17 (662ce9ce), of-watchdog 0.11.6: the stand-in gateway follows their deploy, update, read, scale, namespace, scale-from-zero and invoke code file by file (platform/openfaas/gateway_kube_test.go); no real OpenFaaS install has run faasbench"
