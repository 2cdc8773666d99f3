package experiment

// How a forced cold call is judged: the reply (the function's flag and instance) against the platform's
// record of the instances it started (verifyCold), and where that start sits on the request's time line.

import (
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
)

// startSlack is how far before the request's send an on-path start may
// be stamped and still be the request's: the platform's stamp and the send
// are read from the same host's wall clock, by two processes.
const startSlack = 10 * time.Millisecond

// verifyCold judges one forced call from both sources: it is a verified
// cold start only when the reply was a success (200), the function says it
// was cold, its instance was not seen before (and names itself), and the
// platform records starting that very instance after the iteration began
// (made cold at since) and, where the start is on the request's path, not
// before the request was sent (unless the platform started it by deploying
// the function anew just before: cold.Deployed). Each condition alone
// unverifies a sample.
//
// A function whose replies cannot name their instance (headerless: the
// reason, platform.Headerless; OpenFaaS's classic watchdog sends only the
// forked function's output) has one source only: the platform's record.
// Its call is verified cold only when the platform records exactly one
// instance of the function started since it was made cold, on time as
// above and not seen before: the instance that answered, as no other was
// there. The sample says so (verified_by).
func verifyCold(i int, r reply, seen map[string]bool, started []platform.StartedInstance, since time.Time, cold platform.Cold, headerless string) results.ColdSample {
	smp := results.ColdSample{Iteration: i, LatencyMs: float64(r.latency) / 1e6, Status: r.status, ColdFlag: r.cold,
		NewInstance: r.instance != "" && !seen[r.instance], Kind: r.coldKind, WaitMs: r.waitMs, HandlerMs: r.handlerMs}
	byRecord := r.instance == "" && headerless != ""
	if byRecord {
		smp.VerifiedBy = "the platform's record alone (" + headerless + ")"
		if len(started) != 1 || started[0].ID == "" || !onTime(started[0], r, since, cold) {
			return smp
		}
		r.instance = started[0].ID
		smp.NewInstance = !seen[r.instance]
	}
	for _, st := range started {
		// The instance id is the platform's (a pod name), or "<pod name>-<pid>"
		// where the platform cannot pass the pod name (Knative); OpenWhisk
		// records the activation that started a container.
		if r.instance == "" || !(st.ID == r.instance || strings.HasPrefix(r.instance, st.ID+"-") || (r.activation != "" && st.ID == r.activation)) {
			continue
		}
		if !onTime(st, r, since, cold) {
			continue
		}
		smp.PlatformStarted = true
		smp.Kind, smp.Phases = startOf(r, st, cold)
		if st.Pull > 0 {
			v := float64(st.Pull) / 1e6
			smp.PullMs = &v
		}
	}
	smp.Verified = r.status == 200 && (smp.ColdFlag || byRecord) && smp.NewInstance && smp.PlatformStarted
	return smp
}

// onTime says whether the platform's start st can be the one the forced
// call met: started after the iteration made the function cold (since)
// and, where the start is on the request's path, not before the request
// was sent, unless the platform started it by deploying the function anew
// just before (cold.Deployed) or gave a warm generic instance to the
// function on demand (a specialisation, whose start predates the request
// by design).
func onTime(st platform.StartedInstance, r reply, since time.Time, cold platform.Cold) bool {
	switch {
	case st.Kind == platform.KindSpecialisation && cold.OnPath && !cold.Deployed:
		return true
	case st.Begun().IsZero() || st.Begun().Before(since):
		// Started before the iteration made the function cold: an
		// instance that existed already, whatever the platform says.
		return false
	case cold.OnPath && !cold.Deployed && !r.sent.IsZero() && st.Begun().Before(r.sent.Add(-startSlack)):
		// Started on demand, yet before the request that is said to have
		// started it.
		return false
	}
	return true
}

// phasesOf places the platform's record of the instance it started on the
// request's time line: ms after the request was sent. A phase before the
// send (an instance that was starting already) is kept as a negative
// figure: it says the call found a start under way.
func phasesOf(r reply, st platform.StartedInstance) *results.ColdPhases {
	at := func(t time.Time) *float64 {
		if t.IsZero() || r.sent.IsZero() {
			return nil
		}
		v := float64(t.Sub(r.sent)) / 1e6
		return &v
	}
	ph := &results.ColdPhases{AcceptedMs: at(st.Accepted), CreatedMs: at(st.Started), ScheduledMs: at(st.Scheduled), RunningMs: at(st.Running), ReadyMs: at(st.Ready)}
	if r.firstByte > 0 {
		v := float64(r.firstByte) / 1e6
		ph.FirstByteMs = &v
	}
	return ph
}

// startOf is the kind and phases of a cold sample the platform started st
// for: an instance started before the request was sent (the platform
// cannot start one on demand) makes the request its first, not its
// start-up, and its phases are not on the request's time line.
func startOf(r reply, st platform.StartedInstance, cold platform.Cold) (string, *results.ColdPhases) {
	switch {
	case !cold.OnPath:
		return platform.KindFirstRequest, nil
	case cold.Deployed:
		return platform.KindAfterDeploy, phasesOf(r, st)
	case st.Kind == platform.KindSpecialisation:
		// The instance's own start (a pool's) is not on the request's time line.
		return st.Kind, phasesOf(r, platform.StartedInstance{})
	}
	return st.Kind, phasesOf(r, st)
}
