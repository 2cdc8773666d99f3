#!/usr/bin/env bash
# deploy/knative/test-real.sh [EVIDENCE_DIR]: the full real-node tier (make test-real). make test runs the smoke-sized
# real tier (deploy/node/test.sh); this one builds and imports every workload × language image and
# runs each as a pod, then runs the realnode specs and seed 003's Knative rows at full size on real
# Knative Serving, with 20 cold starts through the activator, and checks that what cannot apply to
# Knative is refused with exit 2 and the reason. Everything runs inside the node's network namespace;
# the load comes from the release binary on the CPU the node does not use.
#
# It keeps going when one run fails, so one bad cell does not cost an hour, and fails at the end if any
# step failed. The evidence goes to EVIDENCE_DIR (default docs/evidence/realnode-full-DATE): for every
# run its summary.md, summary.json and manifest.json, and README.md with the commit it ran on (and
# whether the working tree had changes), each step's status and time, and each image's size.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
EVIDENCE=$(realpath -m "${1:-docs/evidence/realnode-full-$(date +%F)}")
. deploy/node/real-lib.sh

# Every workload × language the catalogue has (workloads/W/L/ beside workloads/W/workload.yaml).
images=()
for d in workloads/*/workload.yaml; do
  w=$(basename "$(dirname "$d")")
  for l in workloads/"$w"/*/; do images+=("$w:$(basename "$l")"); done
done

# The Debian packages first: the Knative build makes its images' root filesystems with mmdebstrap.
real_node_up deploy/knative/build.sh
export CONTAINER_RUNTIME_ENDPOINT # the node's CRI socket: coldstart.evict_image removes images through it
# Images one at a time, so one that fails to build is reported and the others still run.
built=()
for wl in "${images[@]}"; do
  step "image $wl" bash -c 'set -o pipefail; deploy/node/images.sh "$1" "$2" | tee -a "$3"' _ "$DIR/node" "$wl" "$DIR/images.txt"
  grep -q "faasbench/${wl%%:*}-${wl#*:}:local" "$DIR/images.txt" && built+=("$wl")
done
step "real node services (MariaDB, upstream)" deploy/node/services.sh "$DIR/node"
set -a; . "$DIR/node/services.env"; set +a
"$GO" test -c -race -tags realnode -o "$DIR/baseline.test" ./platform/baseline/
step "every image as a pod (-race)" env FB_KUBECONFIG="$KUBECONFIG" FB_REALNODE_IMAGES="${built[*]}" \
  deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/baseline.test" -test.count=1 -test.v -test.run 'RealNodeEveryImage'
step "baseline: realnode-baseline-hello" run baseline-hello examples/realnode/baseline-hello.yaml

step "knative install" deploy/knative/up.sh "$DIR/node"
. "$DIR/node/knative.env"
kn=(--set platform.name=knative --set 'platform.generator_cpus="1"'
  --set "platform.options={image_tag: local, pull_policy: Never, ready_timeout: 120s, gateway: '$KNATIVE_GATEWAY'}")
step "knative: realnode-knative-hello" run knative-hello examples/realnode/knative-hello.yaml
# 20 cold starts through the activator, each after Knative scaled the revision to zero by itself.
cold20() { CHECK_ARGS="--cold-verified 20" run knative-coldstart examples/realnode/knative-coldstart.yaml --set coldstart.iterations=20; }
step "knative: 20 cold starts" cold20
# 5 whose image was removed from the node once the revision's last pod was gone: the activator's new pod
# pulls it from the node's registry (kind image-pull by the kubelet's Pulled event for that pod).
pull5() { CHECK_ARGS="--cold-verified 5 --cold-kind image-pull=5" run knative-coldstart-pull examples/realnode/knative-coldstart-pull.yaml --set coldstart.iterations=5; }
step "knative: 5 image-pull cold starts" pull5
# Cold starts a second (kind coldrate): the curve whole, from 0.1 a second, until past its knee.
step "knative: cold starts a second (coldrate)" run knative-coldrate examples/realnode/knative-coldrate.yaml
# Two repetitions with Knative Serving's components restarted between them (between_repetitions: restart).
restart() { CHECK_ARGS="--resets restart=1" run knative-restart examples/realnode/knative-restart.yaml; }
step "knative: realnode-knative-restart" restart
for s in 003-hello-concurrency 003-gateway-direct 003-payload 003-workers 003-breakdown \
  003-autoscale-steady 003-autoscale-bursty 003-autoscale-low 003-http-workload; do
  # The fetch workload calls the run's own upstream: it listens on the node's address, where pods reach it.
  svc=(); grep -q '^services:' "examples/$s.yaml" && svc=(--set "services.listen=\"$NODE_IP:0\"")
  step "knative: $s" run "knative-$s" "examples/$s.yaml" "${kn[@]}" "${svc[@]}"
done
step "knative refuses 003-watchdog-modes" refused knative-003-watchdog-modes examples/003-watchdog-modes.yaml \
  "Knative runs the image's own server" "${kn[@]}"
step "knative refuses 003-autoscale-cpu" refused knative-003-autoscale-cpu examples/003-autoscale-cpu.yaml \
  "settings.scale_interval: not available on Knative" "${kn[@]}"
# Without scale_interval the spec reaches the cluster, which serves no metrics API: refused too.
step "knative refuses class hpa without metrics.k8s.io" refused knative-003-autoscale-cpu-hpa examples/003-autoscale-cpu.yaml \
  "metrics.k8s.io" "${kn[@]}" --set 'functions[0].settings={autoscale: cpu, target: "0.5", min: "1", max: "4"}'
# Knative's own conformance suites whole (ingress, Serving's api/v1 and runtime): each test's verdict in the evidence,
# and the pass recorded under the key of this Knative in deploy/knative/conformance-passes.tsv (make test checks the
# tree's key has one: deploy/knative/conformance_key.py).
step "knative conformance (whole)" bash -c 'deploy/knative/conformance.sh "$1" "$2" &&
  python3 deploy/knative/conformance_key.py --record "ingress serving-api serving-runtime (whole)" "${2#"$PWD"/}"' _ "$DIR/node" "$EVIDENCE/knative-conformance"
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh || failed=$((failed + 1))

write_readme "Full real-node tier: make test-real" "\`make test-real\` (deploy/knative/test-real.sh)" \
  "2 cores: the node (control plane, containerd, kubelet, Knative, the ingress, the functions) on CPU 0,
the load generator (the release binary) on CPU 1. Each directory holds one run's summary.md,
summary.json and manifest.json (the platform's fingerprint); *.refused.txt hold the refusals' words."
echo "test-real: evidence in $EVIDENCE"
[ "$failed" = 0 ] || { echo "test-real: $failed step(s) failed (table in $EVIDENCE/README.md)" >&2; exit 1; }
echo "test-real: passed"
