#!/usr/bin/env bash
# deploy/kubeless/test-real.sh [EVIDENCE_DIR]: the full Kubeless tier (make test-real-kubeless; part of make test-real).
# Kubeless v1.0.8's function controller built from the pinned source with deploy/kubeless/kubeless.patch, its 2019
# Python runtime (deploy/kubeless/up.sh), alone on the real node:
#   - the realnode tests (deploy/kubeless/node-test.sh's: runtime and image mode, scale, cold start, through Traefik,
#     removal; and the routing after eight scales)
#   - an HPA scaling on CPU: metrics-server started on the node (deploy/shared/metrics-server-up.sh), spin in Go under
#     load scaled beyond one pod by Kubernetes' HPA controller (TestRealKubelessScalesOnCPU), metrics-server removed
#   - hello in Go as a custom runtime image (no failure) and in Python on Kubeless's runtime (a process forked per
#     call; its failures recorded), closed loop at 1 and 4 connections, 10 s per cell, three repetitions
#     (kubeless-hello, resized)
#   - Kubeless's removal (kubeless-down)
# Evidence in EVIDENCE_DIR (default docs/evidence/kubeless-real-DATE), as deploy/knative/test-real.sh writes it. Keeps
# going when a step fails and fails at the end if any did.
set -euo pipefail
cd "$(dirname "$0")/../.."
EVIDENCE=$(realpath -m "${1:-docs/evidence/kubeless-real-$(date +%F)}")
. deploy/kube/paths.sh
. deploy/node/real-lib.sh

real_node_up
step "images hello:go spin:go" bash -c 'set -o pipefail; deploy/node/images.sh "$1" hello:go spin:go | tee -a "$2"' _ "$DIR/node" "$DIR/images.txt"
scripts/phase.sh "kubeless install (with Traefik)" env KUBELESS_INGRESS=traefik deploy/kubeless/up.sh "$DIR/node" | tee "$EVIDENCE/kubeless-up.txt"
. "$DIR/node/kubeless.env"
"${GO:-go}" test -c -race -tags realnode -o "$DIR/kubeless.test" ./platform/kubeless/
realnode() { FB_KUBECONFIG=$KUBECONFIG FB_KUBELESS_NAMESPACE=$KUBELESS_NAMESPACE FB_KUBELESS_INGRESS_URL=$KUBELESS_INGRESS_URL deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/kubeless.test" \
  -test.count=1 -test.v -test.run RealKubeless -test.skip ScalesOnCPU | tee "$EVIDENCE/realnode-tests.txt"; }
step "kubeless: the realnode tests" realnode
# The HPA on CPU needs the resource metrics API, which the node serves only while metrics-server runs: started for
# this test alone, since its scrapes every 15 s would sit in the other measurements.
step "metrics-server (metrics.k8s.io)" bash -c 'set -o pipefail; deploy/shared/metrics-server-up.sh "$1" | tee "$2"' _ "$DIR/node" "$EVIDENCE/metrics-server-up.txt"
oncpu() { FB_METRICS_API=1 FB_KUBECONFIG=$KUBECONFIG FB_KUBELESS_NAMESPACE=$KUBELESS_NAMESPACE deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/kubeless.test" \
  -test.count=1 -test.v -test.run RealKubelessScalesOnCPU | tee "$EVIDENCE/realnode-hpa-cpu.txt"; }
step "kubeless: an HPA scaling on CPU" oncpu
step "metrics-server removed" deploy/shared/metrics-server-down.sh "$DIR/node"
sized=(--set load.duration=10s --set load.warmup=2s --set repetitions=3)
# In Go as the workload's image: no failure. In Python on Kubeless's 2019 runtime: its failures are the runtime's
# and are recorded, not checked (at 4 connections some calls hang until the client's timeout or are answered 408
# at once: kubeless.py forks a process per call from CherryPy's threads; docs/platforms/kubeless.md).
hello_go() { CHECK_ARGS="--failed-max 0" run kubeless-hello-go examples/realnode/kubeless-hello.yaml "${sized[@]}" \
  --set 'functions=[{workload: hello, language: go}]'; }
step "kubeless: hello in Go as a custom runtime image, c=1 and c=4, 3 repetitions" hello_go
hello_py() { run kubeless-hello-py examples/realnode/kubeless-hello.yaml "${sized[@]}" \
  --set 'functions=[{name: hello-py, workload: hello, language: python, settings: {runtime: python3.11, code_file: hello/python/actions/kubeless.py}}]'; }
step "kubeless: hello in Python on Kubeless's 2019 runtime, c=1 and c=4, 3 repetitions (failures recorded)" hello_py
step "kubeless remove" deploy/kubeless/down.sh "$DIR/node"
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh || failed=$((failed + 1))

write_readme "Kubeless v1.0.8 (patched function controller, 2019 Python runtime) on the real node: make test-real-kubeless" \
  "\`make test-real-kubeless\` (deploy/kubeless/test-real.sh)" \
  "2 cores: the node (control plane, containerd, kubelet, Kubeless's controller, the function pods) on CPU 0, the load
generator (the release binary) on CPU 1. Each directory holds one run's summary.md, summary.json and manifest.json;
kubeless-up.txt is the install's log, realnode-tests.txt the realnode tests' output."
echo "test-real-kubeless: evidence in $EVIDENCE"
[ "$failed" = 0 ] || { echo "test-real-kubeless: $failed step(s) failed (table in $EVIDENCE/README.md)" >&2; exit 1; }
echo "test-real-kubeless: passed"
