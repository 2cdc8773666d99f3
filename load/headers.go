package load

// Response headers of the function contract (docs/function-contract.md).
// Handler times are CLOCK_MONOTONIC nanoseconds of the host the function ran
// on: only their difference is used.
const (
	HeaderInstance     = "X-Fb-Instance"
	HeaderCold         = "X-Fb-Cold"
	HeaderColdKind     = "X-Fb-Cold-Kind"
	HeaderHandlerBegin = "X-Fb-Handler-Begin-Ns"
	HeaderHandlerEnd   = "X-Fb-Handler-End-Ns"
	HeaderError        = "X-Fb-Error"
	// HeaderPlatformError is the platform's own reason for a request it
	// failed (the local gateway sets "oom-kill" on the 502 of a request
	// whose instance was killed for exceeding its memory limit).
	HeaderPlatformError = "X-Fb-Platform-Error"
	// Gateway stamps, when the platform's gateway gives them (the local
	// platform does): when the request arrived, when an instance was
	// assigned, when the instance's response headers came back (ns, the
	// gateway's monotonic clock). Only differences are used: the time
	// queued for an instance, and the round trip to it.
	HeaderGwArrive   = "X-Fb-Gw-Arrive-Ns"
	HeaderGwAssigned = "X-Fb-Gw-Assigned-Ns"
	HeaderGwUpstream = "X-Fb-Gw-Upstream-Ns"
)

// gwTimes turns the gateway's stamps into (queue, upstream), -1 when any
// is missing or out of order.
func gwTimes(arrive, assigned, upstream int64) (int64, int64) {
	if arrive < 0 || assigned < arrive || upstream < assigned {
		return -1, -1
	}
	return assigned - arrive, upstream - assigned
}

// gwSetup is the time from the gateway's assignment of an instance to the
// start of the function's handler: the request's way into the instance
// (seed 003 Fig 10's "function initiation"); -1 unless both stamps are
// there and in order. Both clocks are CLOCK_MONOTONIC of one host: only
// the local platform sends the gateway's stamps, and its instances run
// beside it.
func gwSetup(assigned, handlerBegin, handlerEnd, upstream int64) int64 {
	if assigned < 0 || handlerBegin < assigned || handlerEnd < handlerBegin || upstream < handlerEnd {
		return -1
	}
	return handlerBegin - assigned
}

// parseNsString is parseNs for a header read by net/http (not the hot path).
func parseNsString(s string) int64 { return parseNs([]byte(s)) }
