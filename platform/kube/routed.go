package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Identify reads which process answered from the body of a reply at a path that every pod serves
// the same way (a runtime's metrics page), or says why it cannot.
type Identify func(body []byte) (string, error)

// maxRouteBody bounds what WaitRouted reads of a reply: an identity is a line of a metrics page.
const maxRouteBody = 1 << 20

// WaitRouted waits until calls at a Service's address (base: a NodePort's URL) have reached every
// one of pods (their own URLs), within timeout. For a runtime whose answers do not name their pod,
// where WaitHealthy cannot count instances: each pod is first asked directly for its identity at
// path, then base+path is called, a new connection each time (kube-proxy picks an endpoint per
// connection), until every identity has come back through it. Ready pods listed by the Service's
// EndpointSlices are not yet routed: on the real node, Kubeless's NodePort sent the first 9 to 69
// calls after a scale from 1 to 2 to the first pod alone (docs/evidence/kubeless-scale-routing-2026-12-01.txt),
// and once refused one. Two pods that
// read as one identity are told apart by nothing here: they count as one, and the wait ends when
// that one has answered. A refused or failed call is not an answer; the error, at the timeout, says
// how many calls were made, how many failed and which pods never answered. prepare, when not nil,
// completes each call through base (the function's Host at an ingress controller that routes by it).
func WaitRouted(ctx context.Context, base string, pods []string, path string, id Identify, timeout time.Duration, prepare func(*http.Request)) error {
	cl := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	want := map[string]string{} // identity -> the pod's URL
	for _, pod := range pods {
		who, err := identify(ctx, cl, strings.TrimSuffix(pod, "/")+path, id, nil)
		if err != nil {
			return fmt.Errorf("pod %s: %w", pod, err)
		}
		want[who] = pod
	}
	url := strings.TrimSuffix(base, "/") + path
	calls, failed, last := 0, 0, "no call yet"
	err := Poll(ctx, timeout, 10*time.Millisecond, func(ctx context.Context) (bool, error) {
		calls++
		who, err := identify(ctx, cl, url, id, prepare)
		if err != nil {
			if ctx.Err() == nil {
				failed++
				last = err.Error()
			}
			return false, nil
		}
		delete(want, who)
		return len(want) == 0, nil
	})
	if err != nil {
		left := make([]string, 0, len(want))
		for _, pod := range want {
			left = append(left, pod)
		}
		slices.Sort(left)
		if errors.Is(err, ErrTimeout) {
			return fmt.Errorf("%s never reached %s within %s (platform.options.ready_timeout): %d calls, %d failed (last: %s): %w",
				url, strings.Join(left, ", "), timeout, calls, failed, last, err)
		}
		return fmt.Errorf("%s: waiting to reach %s: %w", url, strings.Join(left, ", "), err)
	}
	return nil
}

// identify calls url once, on its own connection, and reads who answered.
func identify(ctx context.Context, cl *http.Client, url string, id Identify, prepare func(*http.Request)) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	if prepare != nil {
		prepare(req)
	}
	resp, err := cl.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRouteBody))
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	who, err := id(body)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	return who, nil
}
