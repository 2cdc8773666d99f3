package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// A platform that started the instance before the request (Cold.OnPath false: a plain Deployment,
// OpenFaaS CE without scale_from_zero) gives a first-request sample with no start-up phases; one
// that started it for the request keeps the platform's kind and the phases.
func TestColdSampleKindFollowsWhetherTheStartWasOnThePath(t *testing.T) {
	sent := time.Now()
	r := reply{sent: sent, firstByte: 40 * time.Millisecond}
	st := platform.StartedInstance{ID: "p", Kind: "pod", Started: sent.Add(5 * time.Millisecond), Ready: sent.Add(30 * time.Millisecond)}
	if kind, ph := startOf(r, st, platform.Cold{OnPath: true}); kind != "pod" || ph == nil || ph.ReadyMs == nil || *ph.ReadyMs < 29 {
		t.Errorf("on the path: %q %+v", kind, ph)
	}
	if kind, ph := startOf(r, st, platform.Cold{}); kind != platform.KindFirstRequest || ph != nil {
		t.Errorf("off the path: %q %+v", kind, ph)
	}
	// Started by a deploy just before the send (OpenFaaS CE): its own kind, and the phases, the
	// creation before the send as a negative figure.
	early := st
	early.Started = sent.Add(-300 * time.Millisecond)
	if kind, ph := startOf(r, early, platform.Cold{OnPath: true, Deployed: true}); kind != platform.KindAfterDeploy || ph == nil || ph.CreatedMs == nil || *ph.CreatedMs > -299 {
		t.Errorf("after a deploy: %q %+v", kind, ph)
	}
}

// The verifier says yes only when every source agrees: each condition
// alone, broken, unverifies a sample that is otherwise cold.
func TestColdVerifierRefusesEachConditionAlone(t *testing.T) {
	since := time.Now()
	sent := since.Add(200 * time.Millisecond) // made cold, then sent
	good := reply{sent: sent, status: 200, cold: true, instance: "pod-a", latency: 900 * time.Millisecond}
	start := platform.StartedInstance{ID: "pod-a", Kind: "pod", Started: sent.Add(20 * time.Millisecond)}
	type tc struct {
		name    string
		r       reply
		seen    map[string]bool
		started []platform.StartedInstance
		cold    platform.Cold
		want    bool
	}
	with := func(f func(*reply)) reply { r := good; f(&r); return r }
	startedAt := func(at time.Time) []platform.StartedInstance {
		s := start
		s.Started = at
		return []platform.StartedInstance{s}
	}
	for _, c := range []tc{
		{"verified: cold, new, started for the request", good, nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, true},
		{"a failed reply", with(func(r *reply) { r.status = 503 }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"a 2xx that is not 200", with(func(r *reply) { r.status = 202 }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"no cold flag", with(func(r *reply) { r.cold = false }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"an instance seen before", good, map[string]bool{"pod-a": true}, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"no instance named", with(func(r *reply) { r.instance = "" }), nil, []platform.StartedInstance{{ID: "", Started: start.Started}}, platform.Cold{OnPath: true}, false},
		{"no start the platform recorded", good, nil, nil, platform.Cold{OnPath: true}, false},
		{"the platform started another instance", good, nil, []platform.StartedInstance{{ID: "pod-b", Kind: "pod", Started: start.Started}}, platform.Cold{OnPath: true}, false},
		{"a pod that existed before the iteration (off the path, where only this check holds)", good, nil, startedAt(since.Add(-time.Second)), platform.Cold{}, false},
		{"a pod that existed before the iteration", good, nil, startedAt(since.Add(-time.Second)), platform.Cold{OnPath: true}, false},
		{"a start with no time", good, nil, startedAt(time.Time{}), platform.Cold{OnPath: true}, false},
		{"an on-path start stamped before the send", good, nil, startedAt(sent.Add(-100 * time.Millisecond)), platform.Cold{OnPath: true}, false},
		{"an off-path start before the send is the platform's way", good, nil, startedAt(sent.Add(-100 * time.Millisecond)), platform.Cold{}, true},
		{"a pod name with the process id (Knative)", with(func(r *reply) { r.instance = "pod-a-17" }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, true},
		{"a pod name that only begins alike", with(func(r *reply) { r.instance = "pod-ab" }), nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, false},
		{"started by the deploy just before the send (OpenFaaS CE)", good, nil, startedAt(sent.Add(-100 * time.Millisecond)), platform.Cold{OnPath: true, Deployed: true}, true},
		{"a pod from before the redeploy", good, nil, startedAt(since.Add(-time.Second)), platform.Cold{OnPath: true, Deployed: true}, false},
		// OpenWhisk: no creation stamp, the controller's acceptance of the request stands for the start.
		{"a start stamped at its acceptance (OpenWhisk)", good, nil, []platform.StartedInstance{{ID: "pod-a", Kind: "container", Accepted: sent.Add(time.Millisecond)}}, platform.Cold{OnPath: true}, true},
		{"an acceptance before the iteration", good, nil, []platform.StartedInstance{{ID: "pod-a", Kind: "container", Accepted: since.Add(-time.Second)}}, platform.Cold{OnPath: true}, false},
		// Fission's poolmgr: a warm pool pod, started long before, given to the function on demand.
		{"a pool pod specialised for the request", good, nil, []platform.StartedInstance{{ID: "pod-a", Kind: platform.KindSpecialisation, Started: since.Add(-time.Minute)}}, platform.Cold{OnPath: true}, true},
		{"a specialised pod the function had already (seen)", good, map[string]bool{"pod-a": true}, []platform.StartedInstance{{ID: "pod-a", Kind: platform.KindSpecialisation, Started: since.Add(-time.Minute)}}, platform.Cold{OnPath: true}, false},
		{"a specialisation off the path is no such thing", good, nil, []platform.StartedInstance{{ID: "pod-a", Kind: platform.KindSpecialisation, Started: since.Add(-time.Minute)}}, platform.Cold{}, false},
		{"a specialisation without the function's cold flag", with(func(r *reply) { r.cold = false }), nil, []platform.StartedInstance{{ID: "pod-a", Kind: platform.KindSpecialisation, Started: since.Add(-time.Minute)}}, platform.Cold{OnPath: true}, false},
	} {
		seen := c.seen
		if seen == nil {
			seen = map[string]bool{}
		}
		smp := verifyCold(1, c.r, seen, c.started, since, c.cold, "")
		if smp.Verified != c.want {
			t.Errorf("%s: verified %v, want %v (%+v)", c.name, smp.Verified, c.want, smp)
		}
	}
}

// A function whose replies cannot carry the function's source (OpenFaaS's
// classic watchdog) is judged by the platform's record alone: verified
// only when exactly one instance started since it was made cold, on time,
// not seen before; the sample says it was judged so.
func TestColdVerifierOfAHeaderlessFunction(t *testing.T) {
	since := time.Now()
	sent := since.Add(200 * time.Millisecond)
	bare := reply{sent: sent, status: 200, latency: 900 * time.Millisecond} // no flag, no instance
	start := platform.StartedInstance{ID: "pod-a", Kind: "pod", Started: sent.Add(20 * time.Millisecond)}
	other := platform.StartedInstance{ID: "pod-b", Kind: "pod", Started: sent.Add(30 * time.Millisecond)}
	early := start // after the iteration began, before the send
	early.Started = sent.Add(-100 * time.Millisecond)
	const why = "the classic watchdog sends only the forked function's output"
	for _, c := range []struct {
		name       string
		r          reply
		seen       map[string]bool
		started    []platform.StartedInstance
		cold       platform.Cold
		headerless string
		want       bool
	}{
		{"one pod started for the request", bare, nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, why, true},
		{"one pod started by the deploy just before (OpenFaaS CE)", bare, nil, []platform.StartedInstance{early}, platform.Cold{OnPath: true, Deployed: true}, why, true},
		{"the same reply from a function that can say (not headerless)", bare, nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, "", false},
		{"two pods started: which answered is unknown", bare, nil, []platform.StartedInstance{start, other}, platform.Cold{OnPath: true}, why, false},
		{"no pod started", bare, nil, nil, platform.Cold{OnPath: true}, why, false},
		{"an on-path pod started before the send", bare, nil, []platform.StartedInstance{early}, platform.Cold{OnPath: true}, why, false},
		{"a pod seen before", bare, map[string]bool{"pod-a": true}, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, why, false},
		{"a failed reply", reply{sent: sent, status: 502}, nil, []platform.StartedInstance{start}, platform.Cold{OnPath: true}, why, false},
		{"a start with no name", bare, nil, []platform.StartedInstance{{Kind: "pod", Started: start.Started}}, platform.Cold{OnPath: true}, why, false},
	} {
		seen := c.seen
		if seen == nil {
			seen = map[string]bool{}
		}
		smp := verifyCold(1, c.r, seen, c.started, since, c.cold, c.headerless)
		if smp.Verified != c.want {
			t.Errorf("%s: verified %v, want %v (%+v)", c.name, smp.Verified, c.want, smp)
		}
		if (smp.VerifiedBy != "") != (c.headerless != "") || (c.headerless != "" && !strings.Contains(smp.VerifiedBy, c.headerless)) {
			t.Errorf("%s: verified_by %q", c.name, smp.VerifiedBy)
		}
		if c.want && (smp.ColdFlag || smp.Kind == "" || smp.Phases == nil) {
			t.Errorf("%s: a sample the function said nothing of: flag %v, kind %q, phases %+v", c.name, smp.ColdFlag, smp.Kind, smp.Phases)
		}
	}
}

// A start whose image the node pulled for it (the platform's record: the
// kubelet's Pulled event after coldstart.evict_image) is kind image-pull,
// with the pull's time; a start that found the image present is kind pod,
// with none.
func TestColdSampleCarriesThePull(t *testing.T) {
	// A specialisation's phases leave out the pool pod's own start (not on the request).
	since0 := time.Now()
	spec := verifyCold(1, reply{sent: since0.Add(time.Millisecond), status: 200, cold: true, instance: "pod-s-7", latency: time.Second, firstByte: time.Second},
		map[string]bool{}, []platform.StartedInstance{{ID: "pod-s", Kind: platform.KindSpecialisation, Started: since0.Add(-time.Hour)}}, since0, platform.Cold{OnPath: true}, "")
	if !spec.Verified || spec.Kind != platform.KindSpecialisation || spec.Phases == nil || spec.Phases.CreatedMs != nil || spec.Phases.FirstByteMs == nil {
		t.Errorf("a specialisation: %+v (phases %+v)", spec, spec.Phases)
	}
	since := time.Now()
	sent := since.Add(200 * time.Millisecond)
	r := reply{sent: sent, status: 200, cold: true, instance: "pod-a", latency: 900 * time.Millisecond}
	pulled := platform.StartedInstance{ID: "pod-a", Kind: platform.KindImagePull, Started: sent.Add(20 * time.Millisecond), Pull: 250 * time.Millisecond}
	smp := verifyCold(1, r, map[string]bool{}, []platform.StartedInstance{pulled}, since, platform.Cold{OnPath: true}, "")
	if !smp.Verified || smp.Kind != platform.KindImagePull || smp.PullMs == nil || *smp.PullMs != 250 {
		t.Errorf("a pulled start: %+v (pull %v)", smp, smp.PullMs)
	}
	present := pulled
	present.Kind, present.Pull = "pod", 0
	smp = verifyCold(1, r, map[string]bool{}, []platform.StartedInstance{present}, since, platform.Cold{OnPath: true}, "")
	if !smp.Verified || smp.Kind != "pod" || smp.PullMs != nil {
		t.Errorf("a start that found the image: %+v", smp)
	}
}

// Known answers for the sample's latency and the three ways a started instance is matched to the reply
// (issue 61's sweep): the pod's own name, "<pod>-<pid>" (Knative), and OpenWhisk's activation id.
func TestColdVerifierMatchesTheStartedInstanceThreeWays(t *testing.T) {
	since := time.Now()
	sent := since.Add(200 * time.Millisecond)
	st := func(id string) []platform.StartedInstance {
		return []platform.StartedInstance{{ID: id, Kind: "pod", Started: sent.Add(20 * time.Millisecond)}}
	}
	for _, c := range []struct {
		name, instance, activation, started string
		want                                bool
	}{
		{"the pod's name", "pod-a", "", "pod-a", true},
		{"<pod>-<pid>", "pod-a-4711", "", "pod-a", true},
		{"the activation that started the container", "ctr-9", "act-1", "act-1", true},
		{"another pod", "pod-b", "", "pod-a", false},
		{"a record without an id, no activation", "pod-a", "", "", false},
	} {
		r := reply{sent: sent, status: 200, cold: true, instance: c.instance, activation: c.activation, latency: 1234567 * time.Nanosecond}
		smp := verifyCold(1, r, nil, st(c.started), since, platform.Cold{OnPath: true}, "")
		if smp.PlatformStarted != c.want {
			t.Errorf("%s: platform started %v, want %v", c.name, smp.PlatformStarted, c.want)
		}
		if smp.LatencyMs != 1.234567 {
			t.Errorf("%s: latency %v ms, want 1.234567", c.name, smp.LatencyMs)
		}
	}
}
