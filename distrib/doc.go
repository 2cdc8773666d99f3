// Package distrib spreads one cell's load over several generator processes
// and merges what they measured into one exact result (issue #24).
//
// A coordinator (the faasbench run) talks to each generator (`faasbench
// agent`) over one byte stream: the agent's stdin and stdout. Locally the
// stream is a pipe to a child process; on Kubernetes it is the agent pod's
// attached stdin and stdout, carried by the API server, so the coordinator
// needs no route to the pods (it works from a laptop) and the agent listens
// on nothing. Over the stream go length-prefixed JSON messages (frame.go):
// a hello with the run's token (the agent refuses anything else), clock
// pings (clock.go: the offset of the agent's CLOCK_REALTIME to the
// coordinator's, minimum-RTT estimate, ± RTT/2), then per load a job (the
// agent's share of the schedule, workers or items, and the instant to start
// on its own clock) and its report (exact HDR histograms, per-second
// windows, the agent's CPU and steal). The coordinator merges the reports
// with load.MergeResults.
package distrib
