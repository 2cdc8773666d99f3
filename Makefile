# faasbench: the two commands of the README are `make run` and `make test`.
# Both install what is missing first (idempotent), so they work on a fresh machine.

SHELL := /bin/bash
GO ?= go
STATICCHECK_VERSION := v0.7.0
CACHE := $(CURDIR)/.cache
BIN := $(CURDIR)/bin
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT := $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null && echo $$c || echo $$c-dirty; } || echo unknown)
LDFLAGS := -X github.com/faasbench/faasbench/internal/cli.version=$(VERSION) -X github.com/faasbench/faasbench/internal/cli.commit=$(COMMIT)
SPEC ?= examples/quickstart.yaml

.PHONY: cgroup2-test test-real-cgroup2 run test test-real test-real-openfaas test-real-nuclio test-real-fission setup build lint unit python-test integration kube-test node-test bench fmt clean phases-begin components-start components-wait openfaas-test nuclio-test

## run: install what is missing, build, and run the quickstart on the local platform
## (with the project's MariaDB for the query function, stopped again afterwards)
run: setup build
	@set -a; eval "$$(scripts/mariadb.sh start)"; set +a; \
	trap 'scripts/mariadb.sh stop' EXIT; \
	$(BIN)/faasbench run $(SPEC)

## test: install what is missing, then format check, vet, lint, all Go tests with -race, Python and Node
## tests, the end-to-end tests, the Kubernetes tests on a real control plane with KWOK's simulated nodes,
## and the real-node tier (containerd, kubelet, kube-proxy, CoreDNS, real pods; scripts/node-test.sh).
## Kubernetes is built once into $$FAASBENCH_CACHE (default /var/cache/faasbench), outside the clone.
test: phases-begin setup build lint components-start unit python-test integration cgroup2-test components-wait openfaas-test nuclio-test kube-test node-test
	@scripts/phase.sh --table

# Every phase's time goes to $(FB_PHASES) (scripts/phase.sh); make test and .ci/run print the table.
export FB_PHASES ?= $(CACHE)/phases.tsv
phases-begin:
	@mkdir -p $(CACHE) && : > $(FB_PHASES)

setup:
	@scripts/setup.sh

# The Kubernetes and Knative builds run in the background at idle priority beside the unit, Python and
# integration tests (scripts/components.sh), and stop if make exits before them; components-wait joins
# them before the Kubernetes tiers (its phase time is what they cost beyond the phases they overlapped).
components-start:
	@scripts/components.sh start $$PPID
components-wait:
	@scripts/phase.sh "component builds (background; the wait beyond the phases they overlapped)" scripts/components.sh wait

build:
	@scripts/phase.sh "build" env CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/faasbench ./cmd/faasbench

lint:
	@scripts/phase.sh "format check" bash -c 'out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi'
	@# One pass each with every test tag: no file is built only without them (no negated build tags), so
	@# -tags kube,realnode,nuclioproc is every file of the default build and the tagged tests (three passes before).
	@scripts/phase.sh "go vet" bash -c '$(GO) vet -tags kube,realnode,nuclioproc ./... && cd kingress && $(GO) vet ./...'
	@scripts/phase.sh "staticcheck $(STATICCHECK_VERSION)" bash -c "$(CACHE)/bin/staticcheck -tags kube,realnode,nuclioproc ./... && cd kingress && $(CACHE)/bin/staticcheck ./..."

## unit: every Go package except the end-to-end tests of the binary
unit:
	@scripts/phase.sh "go unit tests (-race)" bash -c '$(GO) test -race -count=1 $$($(GO) list ./... | grep -v /cmd/faasbench)'
	@scripts/phase.sh "kingress unit tests (-race; kingress/ is a module of its own)" bash -c 'cd kingress && $(GO) test -race -count=1 ./...'

## integration: the real binary end to end (run, bad specs, Ctrl-C, SIGKILL)
integration:
	@scripts/phase.sh "integration tests" $(GO) test -race -count=1 ./cmd/faasbench/

## cgroup2-test: the cgroup v2 backend on a real cgroup v2 kernel: Debian's kernel under qemu (software emulation,
## cgroup_no_v1=all) runs the cgroup package's tests (root and rootless) and the local platform's limit and OOM
## tests (scripts/v2-guest.sh; capped at 5 minutes, the guest's phase times printed)
cgroup2-test:
	@GO=$(GO) scripts/phase.sh "cgroup v2 guest (Debian's kernel under qemu: cgroup and local limit tests)" scripts/v2-guest.sh

## openfaas-test: faasbench's functions behind OpenFaaS's real watchdogs (of-watchdog http and serializing, the
## classic fork watchdog), and faasbench's gateway client against the real 2022 gateway, basic-auth plugin and
## faas-netes on a control plane with KWOK (scripts/openfaas-api-test.sh), all built from their pinned source
## (scripts/openfaas-build.sh), each in a network namespace of its own; and the 2022 chart rendered by Helm's
## own helm template with faasbench's values (scripts/openfaas/test_render.py)
openfaas-test:
	@scripts/phase.sh "openfaas watchdogs (real, from pinned source) and the 2022 chart rendered by helm" bash -c 'bin=$$(scripts/openfaas-build.sh | tail -1) && FB_OPENFAAS_BIN=$$bin python3 -m pytest -q scripts/openfaas'
	@GO=$(GO) scripts/phase.sh "openfaas 2022 gateway and faas-netes (real, system API, KWOK)" scripts/openfaas-api-test.sh

## nuclio-test: faasbench's Python functions in Nuclio's real processor (1.14.1, built from its pinned source by
## scripts/nuclio-build.sh) as the adapter configures them: the contract, workers, the worker-availability 503
nuclio-test:
	@GO=$(GO) scripts/phase.sh "nuclio processor (real, from pinned source): Python, Node.js, C++ and Go functions, workers, worker timeout, body limit" scripts/nuclio-processor-test.sh

## kube-test: build (once) and start a real Kubernetes control plane, run the tests tagged kube, stop it
kube-test:
	@GO=$(GO) scripts/kube-test.sh

## node-test: a real one-node cluster in a network namespace of its own: the tests tagged realnode and a
## faasbench run on it, then the host checked to be as before (scripts/node-test.sh)
node-test: build
	@GO=$(GO) scripts/node-test.sh

## test-real: the full real-node tier (about five and a half hours with its four tiers below; its own part about an
## hour): every workload image as a pod, the realnode specs
## and seed 003's Knative rows at full size on real Knative Serving, 20 cold starts through the
## activator; writes docs/evidence/realnode-full-DATE (or EVIDENCE=DIR) with the commit it ran on
test-real: setup build test-real-openfaas test-real-nuclio test-real-fission test-real-cgroup2
	@GO=$(GO) scripts/test-real.sh $(EVIDENCE)

## test-real-cgroup2: the real node on a cgroup v2 host (about 10 minutes): the v2 guest of make test, and in it
## containerd, runc and the kubelet on the unified hierarchy, a faasbench run on the node, a pod's limits checked
## in memory.max and cpu.max, the host checked after node-down, then the quickstart (scripts/v2-guest.sh --node)
test-real-cgroup2: setup build
	@GO=$(GO) scripts/phase.sh "real node on cgroup v2 (qemu guest)" scripts/v2-guest.sh --node

## test-real-openfaas: OpenFaaS of 2022-10 on the real node at full size (about 45 minutes): gateway vs direct
## at c=1 and c=16 with three repetitions, 20 cold starts from zero, AlertManager's scaling three times, seed
## 003's hello-concurrency, gateway-direct and watchdog-modes rows, seed 000's byte reversal and image batch,
## seed 002's word count and MapReduce, then seed 000's registered rules on a node of their own (about 45 minutes
## more); writes docs/evidence/openfaas-real-DATE (or OPENFAAS_EVIDENCE=DIR)
test-real-openfaas: setup build
	@GO=$(GO) scripts/test-real-openfaas.sh $(OPENFAAS_EVIDENCE)

## test-real-nuclio: Nuclio 1.14.1 on the real node at full size (about 40 minutes): Service vs direct at c=1 and
## c=16 with three repetitions, workers 1 and 4, 20 cold starts through its scale to zero and DLX, seed 003's
## workers row, the same function as a plain pod, then seeds 003's and 000's registered rules on a node of their own
## (about 90 minutes more); writes docs/evidence/nuclio-real-DATE (or NUCLIO_EVIDENCE=DIR)
test-real-nuclio: setup build
	@GO=$(GO) scripts/test-real-nuclio.sh $(NUCLIO_EVIDENCE)

## test-real-fission: Fission v1.27.0 on the real node at full size (about 55 minutes): router vs direct on the
## container executor at c=1 and c=16, newdeploy and poolmgr, three repetitions each, 20 cold starts of each kind
## (newdeploy from zero, poolmgr's specialisation), Fission's own Python and Node.js environments, three faults, and
## seed 003's platform comparisons; writes docs/evidence/fission-real-DATE (or FISSION_EVIDENCE=DIR)
test-real-fission: setup build
	@GO=$(GO) scripts/test-real-fission.sh $(FISSION_EVIDENCE)

python-test:
	@scripts/phase.sh "python tests (functions, reproductions, the real tier's run checker)" python3 -m pytest -q workloads scripts/repro scripts/node scripts/upstream
	@scripts/phase.sh "node function tests" node --test workloads/runtime/node/

## bench: the load engine's Go benchmarks (ns, allocations and req/s per request, printed, never asserted);
## bench/bench.py compares the engine with wrk, oha, hey, vegeta and a C floor
bench: setup
	@scripts/phase.sh "go benchmarks" bash -c 'GOMAXPROCS=$${GOMAXPROCS:-1} $(GO) test -run "^$$" -bench . -benchmem ./load/ ./hist/'

fmt:
	gofmt -w .

clean:
	rm -rf $(BIN) build
