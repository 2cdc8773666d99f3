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
)
