# faasbench: the two commands of the README are `make run` and `make test`.
# Both install what is missing first (idempotent), so they work on a fresh machine.

SHELL := /bin/bash
GO ?= go
STATICCHECK_VERSION := v0.7.0
GREMLINS_VERSION := v0.6.0
CACHE := $(CURDIR)/.cache
BIN := $(CURDIR)/bin
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT := $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null && echo $$c || echo $$c-dirty; } || echo unknown)
LDFLAGS := -X github.com/faasbench/faasbench/cli.version=$(VERSION) -X github.com/faasbench/faasbench/cli.commit=$(COMMIT)
SPEC ?= examples/quickstart.yaml
# The platforms that run for real, each a folder deploy/<platform>/ with the same verbs (deploy/README.md): a new
# platform is a new folder and one word here. Their order is the real-node tier's (one at a time on the node).
PLATFORMS := openfaas nuclio fission openwhisk kubeless knative

.PHONY: cache-prune mutate mutate-py mutate-sweep metrics-test cgroup2-test test-real-cgroup2 run test test-real $(PLATFORMS:%=test-real-%) setup build lint unit python-test integration kube-test node-test platform-tests bench fmt clean phases-begin components-start components-wait

## run: install what is missing, build, and run the quickstart on the local platform
## (with the project's MariaDB for the query function, stopped again afterwards)
run: setup build
	@set -a; eval "$$(scripts/mariadb.sh start)"; set +a; \
	trap 'scripts/mariadb.sh stop' EXIT; \
	$(BIN)/faasbench run $(SPEC)

## test: install what is missing, then format check, vet, lint, all Go tests with -race, Python and Node
## tests, the end-to-end tests, the Kubernetes tests on a real control plane with KWOK's simulated nodes,
## each platform's tests off the node (deploy/<platform>/test.sh), and the real-node tier (containerd, kubelet,
## kube-proxy, CoreDNS, real pods, then each platform in turn; deploy/node/test.sh). docs/testing.md says what each
## phase covers and what it costs.
## Kubernetes is built once into $$FAASBENCH_CACHE (default /var/cache/faasbench), outside the clone.
test: phases-begin setup components-start build lint unit python-test integration cgroup2-test kube-test node-test metrics-test platform-tests components-wait
	@scripts/phase.sh --table

# Every phase's time goes to $(FB_PHASES) (scripts/phase.sh); make test and .ci/run print the table.
export FB_PHASES ?= $(CACHE)/phases.tsv
phases-begin:
	@mkdir -p $(CACHE) && : > $(FB_PHASES)

setup:
	@scripts/setup.sh

# The components (Kubernetes, the registry, Helm, Prometheus, every platform's build) build in the background
# at idle priority from right after setup, beside the build, vet, staticcheck, unit, Python and integration
# phases and then the tiers (scripts/components.sh), and stop if make exits before them. Each tier waits only for
# what it runs (scripts/components.sh await: the kube tier for Kubernetes; the real node's tier for the shared
# components, then each platform for its own build, in the chain's order), so the platforms still building on a
# fresh machine build beside the node's tier instead of before it (about 40 to 50 minutes of idle CPU in all, more
# than the Go phases leave: docs/testing.md). components-wait, last, joins them and fails on a failed build.
components-start:
	@FB_PLATFORMS="$(PLATFORMS)" scripts/components.sh start $$PPID
components-wait:
	@scripts/phase.sh "component builds (background: the rest of their wait, and their log)" scripts/components.sh wait

build:
	@scripts/phase.sh "build" env CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)/faasbench ./cmd/faasbench

lint:
	@scripts/phase.sh "format check" bash -c 'out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi'
	@# One pass each with every test tag: no file is built only without them (no negated build tags), so
	@# -tags kube,realnode,nuclioproc is every file of the default build and the tagged tests (three passes before).
	@# With cgo off, as the release binary is built (no faasbench package uses cgo): the lint phases then reuse the
	@# dependencies the build phase compiled, where with cgo on a fresh machine compiled them all again (go vet
	@# after a cold build: 147 s with cgo on, 63 s off; docs/testing.md).
	@scripts/phase.sh "go vet" bash -c 'CGO_ENABLED=0 $(GO) vet -tags kube,realnode,nuclioproc ./...'
	@scripts/phase.sh "staticcheck $(STATICCHECK_VERSION)" bash -c "CGO_ENABLED=0 $(CACHE)/bin/staticcheck -tags kube,realnode,nuclioproc ./..."

## unit: every Go package except the end-to-end tests of the binary
unit:
	@scripts/phase.sh "go unit tests (-race)" bash -c '$(GO) test -race -count=1 $$($(GO) list ./... | grep -v /cmd/faasbench)'

## integration: the real binary end to end (run, bad specs, Ctrl-C, SIGKILL); about 10 minutes on 2 cores, past go
## test's default 10-minute timeout, so it gets 25
integration:
	@scripts/phase.sh "integration tests" $(GO) test -race -count=1 -timeout 25m ./cmd/faasbench/

## cgroup2-test: the cgroup v2 backend on a real cgroup v2 kernel: Debian's kernel under qemu (software emulation,
## cgroup_no_v1=all) runs the cgroup package's tests (root and rootless) and the local platform's limit and OOM
## tests (deploy/cgroup2/guest.sh; capped at 5 minutes, the guest's phase times printed)
cgroup2-test:
	@GO=$(GO) scripts/phase.sh "cgroup v2 guest (Debian's kernel under qemu: cgroup and local limit tests)" deploy/cgroup2/guest.sh

## metrics-test: run --metrics-listen's exporter scraped by a real Prometheus (built from the module proxy by the
## background builds), its HTTP API giving the series back (deploy/shared/metrics-test.sh)
metrics-test:
	@scripts/phase.sh "component builds: waiting for Prometheus" scripts/components.sh await prometheus
	@GO=$(GO) scripts/phase.sh "live metrics scraped by a real Prometheus" deploy/shared/metrics-test.sh

## platform-tests: each platform's tests off the node, where it has them (deploy/<platform>/test.sh): OpenFaaS's real
## watchdogs, its 2022 chart rendered by Helm and its real 2022 gateway on KWOK; Nuclio's real processor
platform-tests:
	@for p in $(PLATFORMS); do [ ! -x deploy/$$p/test.sh ] || { scripts/components.sh await $$p && GO=$(GO) deploy/$$p/test.sh; } || exit; done

## kube-test: build (once) and start a real Kubernetes control plane, run the tests tagged kube, stop it
kube-test:
	@scripts/phase.sh "component builds: waiting for Kubernetes" scripts/components.sh await kube
	@GO=$(GO) deploy/kube/test.sh

## node-test: a real one-node cluster in a network namespace of its own: the tests tagged realnode and a
## faasbench run on it, then the host checked to be as before (deploy/node/test.sh)
node-test: build
	@GO=$(GO) FB_PLATFORMS="$(PLATFORMS)" deploy/node/test.sh

## test-real: every platform's full real tier, one after another, then the real node on a cgroup v2 host (hours:
## each deploy/<platform>/test-real.sh says its time and what it runs); the evidence goes to docs/evidence/
test-real: setup build $(PLATFORMS:%=test-real-%) test-real-cgroup2

## test-real-<platform>: that platform's full real tier on the real node (deploy/<platform>/test-real.sh): writes
## docs/evidence/<platform>-real-DATE, or the directory in <PLATFORM>_EVIDENCE (EVIDENCE for Knative's, as before)
define test_real_platform
test-real-$(1): setup build
	@GO=$(GO) deploy/$(1)/test-real.sh $$($(shell echo $(1) | tr a-z A-Z)_EVIDENCE)
endef
$(foreach p,$(PLATFORMS),$(eval $(call test_real_platform,$(p))))
KNATIVE_EVIDENCE ?= $(EVIDENCE)

## test-real-cgroup2: the real node on a cgroup v2 host (about 10 minutes): the v2 guest of make test, and in it
## containerd, runc and the kubelet on the unified hierarchy, a faasbench run on the node, a pod's limits checked
## in memory.max and cpu.max, the host checked after node-down, then the quickstart (deploy/cgroup2/guest.sh --node)
test-real-cgroup2: setup build
	@GO=$(GO) scripts/phase.sh "real node on cgroup v2 (qemu guest)" deploy/cgroup2/guest.sh --node

python-test:
	@scripts/phase.sh "python tests (functions, reproductions, the real tier's run checker)" python3 -m pytest -q workloads scripts/repro scripts/mutate scripts/test_phase.py scripts/test_components.py deploy/node deploy/shared deploy/cgroup2 deploy/knative deploy/test_layout.py deploy/test_traps.py
	@scripts/phase.sh "node function tests" node --test workloads/runtime/node/

## bench: the load engine's Go benchmarks (ns, allocations and req/s per request, printed, never asserted);
## bench/bench.py compares the engine with wrk, oha, hey, vegeta and a C floor
bench: setup
	@scripts/phase.sh "go benchmarks" bash -c 'GOMAXPROCS=$${GOMAXPROCS:-1} $(GO) test -run "^$$" -bench . -benchmem ./load/ ./hist/'

fmt:
	gofmt -w .

## cache-prune: list the entries of the build cache ($$FAASBENCH_CACHE, default /var/cache/faasbench) of an old key: not the newest of their family
## and not named by any script for DAYS days (7); YES=1 removes them (deploy/shared/cache_prune.py)
cache-prune:
	@deploy/shared/cache_prune.py --days "$(or $(DAYS),7)" $(if $(YES),--yes)

# Deliberate bugs in the code that computes figures, each on a copy of the committed tree, and the tests that
# must catch them (scripts/mutate/mutants.yaml): the score and every survivor; fails under MIN (default 0.9).
# Not part of make test (about 15 min on 2 cores: docs/testing.md).
mutate: setup
	@python3 scripts/mutate/mutate.py --min "$(or $(MIN),0.9)" $(if $(ONLY),--only $(ONLY))

# The Python side of the operator sweep (scripts/mutate/pysweep.py, written here: gremlins mutates Go only): every
# comparison, arithmetic operator and and/or on a line the tests run, over the real tier's run checker and the
# reproduction rules; fails under MIN (default 0.9). Not part of make test (about 10 min on 2 cores).
PYSWEEP_TARGETS ?= deploy/node/check-run.py:deploy/node/test_check_run.py scripts/repro/rules.py:scripts/repro/test_rules.py
mutate-py: setup
	@python3 scripts/mutate/pysweep.py --min "$(or $(MIN),0.9)" $(PYSWEEP_TARGETS)

# An operator sweep by a Go mutation tool (gremlins, pinned) over PKGS (default the trace replay's packages): every
# arithmetic, comparison and increment mutated where the tests cover it; the efficacy and every survivor. Not part of
# make test (trace and replay: about 8 min on 2 cores; docs/testing.md lists the survivors judged equivalent).
# TIMEOUT: a mutant's tests may take that many times the unmutated tests' time before it counts as timed out (a
# loop that never ends); 10 cut ./stats's slower mutants short, hiding survivors. EXCLUDE: a regexp of the files left
# out, as paths inside the package (EXCLUDE='(steady|warmup)\.go$$'; gremlins matches no package prefix).
# MIN: the least efficacy in percent, read from gremlins' own summary (its --threshold-efficacy did not fail the run here):
# under it the target fails (off by default: trace and replay's sweep keeps survivors judged equivalent in docs/testing.md).
mutate-sweep: setup
	@test -x $(CACHE)/bin/gremlins || GOBIN=$(CACHE)/bin go install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)
	@out=$$(mktemp); trap 'rm -f $$out' EXIT; for p in $(or $(PKGS),./trace ./replay); do echo "==> gremlins $$p"; \
		$(CACHE)/bin/gremlins unleash --workers 2 --timeout-coefficient $(or $(TIMEOUT),20) $(if $(EXCLUDE),-E '$(EXCLUDE)') \
		$$p | tee $$out; [ "$${PIPESTATUS[0]}" = 0 ] || exit 1; [ -z "$(MIN)" ] && continue; \
		e=$$(sed -n 's/^Test efficacy: \([0-9.]*\)%.*/\1/p' $$out); \
		awk -v e="$$e" -v m="$(MIN)" 'BEGIN { exit !(e != "" && e + 0 >= m + 0) }' || \
		{ echo "mutate-sweep: $$p: efficacy $${e:-unknown} % is under MIN $(MIN) %" >&2; exit 1; }; done

clean:
	rm -rf $(BIN) build
