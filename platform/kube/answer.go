package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// WaitAnswering waits until n distinct instances of a function have
// answered at url as the function itself (its X-Fb-Instance header, with a
// status below 500), each call on a new connection so that a Service or a
// gateway may send it to another instance, within timeout. It is for
// platforms whose readiness says less than that the function listens:
// of-watchdog answers its health check before the function's server is up
// (OpenFaaS), and Fission's container executor gives its pods no readiness
// probe at all. prepare, when not nil, completes each request (auth, a Host).
func WaitAnswering(ctx context.Context, url string, n int, timeout time.Duration, prepare func(*http.Request)) error {
	seen := map[string]bool{}
	last, err := waitReplies(ctx, url, timeout, prepare, func(resp *http.Response) (bool, string) {
		if id := resp.Header.Get("X-Fb-Instance"); id != "" && resp.StatusCode < 500 {
			seen[id] = true
			return len(seen) >= n, ""
		}
		if id := resp.Header.Get("X-Fb-Instance"); id != "" {
			return false, fmt.Sprintf("HTTP %d from instance %s (a failure, not an answer)", resp.StatusCode, id)
		}
		return false, fmt.Sprintf("HTTP %d without the function's X-Fb-Instance", resp.StatusCode)
	})
	if errors.Is(err, ErrTimeout) {
		return fmt.Errorf("%d of %d instances answered as the function at %s within %s (platform.options.ready_timeout; last: %s): %w", len(seen), n, url, timeout, last, err)
	}
	return err
}

// WaitAnswered waits until a call at url is answered below 500, within
// timeout: for a function whose replies cannot name their instance
// (platform.Headerless), where WaitAnswering would wait for ever.
func WaitAnswered(ctx context.Context, url string, timeout time.Duration, prepare func(*http.Request)) error {
	last, err := waitReplies(ctx, url, timeout, prepare, func(resp *http.Response) (bool, string) {
		return resp.StatusCode < 500, fmt.Sprintf("HTTP %d", resp.StatusCode)
	})
	if errors.Is(err, ErrTimeout) {
		return fmt.Errorf("no answer below 500 at %s within %s (platform.options.ready_timeout; last: %s): %w", url, timeout, last, err)
	}
	return err
}

// waitReplies calls url (GET, a new connection each time) until done says
// a reply is enough, within timeout; it returns the last reason not.
func waitReplies(ctx context.Context, url string, timeout time.Duration, prepare func(*http.Request), done func(*http.Response) (bool, string)) (string, error) {
	cl := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	last := "no answer yet"
	err := Poll(ctx, timeout, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		if prepare != nil {
			prepare(req)
		}
		resp, err := cl.Do(req)
		if err != nil {
			if ctx.Err() == nil { // the deadline cutting the last call short is no reason
				last = err.Error()
			}
			return false, nil
		}
		_ = resp.Body.Close()
		ok, why := done(resp)
		if !ok {
			last = why
		}
		return ok, nil
	})
	return last, err
}
