package fission

import (
	"strings"
	"testing"
	"time"
)

// Lines of the real executor's log (Fission v1.27.0 on the real node, a poolmgr function whose
// environment could not load its code), trimmed.
const executorLog = `{"level":"info","ts":"2026-11-27T13:41:12.762Z","logger":"generic_pool_manager.generic_pool.fetcher_client","caller":"client/client.go:193","msg":"retrying request","url":"http://10.250.0.17:8000/specialize","attempt":19,"backoff":2,"error":"Internal error - error specializing function pod"}
{"level":"error","ts":"2026-11-27T13:30:00.000Z","logger":"executor","caller":"executor/executor.go:138","msg":"error creating service for function","function_name":"fb-noload-pm","function_namespace":"default","error":"an older run's error"}
{"level":"error","ts":"2026-11-27T13:41:14.671Z","logger":"executor","caller":"executor/executor.go:138","msg":"error creating service for function","trace_id":"dc35","function_name":"fb-noload-pm","function_namespace":"default","error":"specialize signed master-scoped: Internal error - error specializing function pod: Internal error - <!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>","stacktrace":"github.com/fission/fission/pkg/executor.(*Executor).createServiceForFunction\n\tgithub.com/fission/fission/pkg/executor/executor.go:138"}
{"level":"error","ts":"2026-11-27T13:41:14.671Z","logger":"executor","caller":"executor/executor.go:138","msg":"error creating service for function","trace_id":"dc35","function_name":"fb-noload-pm","function_namespace":"default","error":"specialize signed master-scoped: Internal error - error specializing function pod: Internal error - <!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>","stacktrace":"..."}
{"level":"error","ts":"2026-11-27T13:41:14.700Z","logger":"executor","msg":"error creating service for function","function_name":"other-fn","error":"not ours"}
{"level":"error","ts":"2026-11-27T13:41:14.671Z","logger":"executor","caller":"executor/api.go:75","msg":"error getting service for function","function":"fb-noload-pm","fission_http_error":"client leave early in the process of getServiceForFunction","error":" - client leave early in the process of getServiceForFunction"}
not a JSON line`

func TestExecutorErrors(t *testing.T) {
	since := time.Date(2026, 11, 27, 13, 40, 0, 0, time.UTC)
	got := executorErrors([]byte(executorLog), "fb-noload-pm", since, 4)
	want := []string{
		"error creating service for function: specialize signed master-scoped: Internal error - error specializing function pod: Internal error - <!doctype html> <html lang=en> <title>500 Internal Server Error</title>",
		"error getting service for function: - client leave early in the process of getServiceForFunction",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if last := executorErrors([]byte(executorLog), "fb-noload-pm", since, 1); len(last) != 1 || last[0] != want[1] {
		t.Errorf("the last one: %q", last)
	}
	if none := executorErrors([]byte(executorLog), "fb-noload-pm", since.Add(time.Hour), 4); len(none) != 0 {
		t.Errorf("lines older than the deploy: %q", none)
	}
}
