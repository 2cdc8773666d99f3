package main

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const dashSpec = `version: 1
name: dash
platform: {name: local}
functions: [{workload: hello, language: go}]
load: {concurrency: [2], duration: 2s, warmup: 0s}
repetitions: 1
`

// dashEnd is the end event's part the tests read.
type dashEnd struct {
	Status string `json:"status"`
	Cells  []struct {
		ID       string `json:"id"`
		Requests int64  `json:"requests"`
	} `json:"cells"`
}

// dashboardRun runs spec with --dashboard-listen (and extra flags) and
// reads its event stream to the end: the most ok requests a frame of the
// cell's last measurement showed, the end event, the run's stderr, and the
// status its end must say (wantStatus).
func dashboardRun(t *testing.T, spec string, extra ...string) (int64, dashEnd, string, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res := t.TempDir()
	args := append([]string{"run", writeSpec(t, spec), "--results", res, "--workloads", workloadsDir(t), "--dashboard-listen", addr}, extra...)
	cmd := exec.Command(binary, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var resp *http.Response
	for i := 0; i < 300; i++ { // at most 30 s for the server to come up
		if resp, err = http.Get("http://" + addr + "/events"); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("no dashboard at %s: %v\n%s", addr, err, stderr.String())
	}
	var maxOK int64
	var end dashEnd
	measurement := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	kind := ""
	for sc.Scan() { // ends when the run's dashboard closes the stream
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			kind = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && kind == "frame":
			var f struct {
				Cell *struct {
					OK          int64 `json:"ok"`
					Measurement int   `json:"measurement"`
				} `json:"cell"`
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &f); err != nil {
				t.Fatal(err)
			}
			if f.Cell != nil {
				if f.Cell.Measurement != measurement {
					// measured again (the hypervisor stole CPU time): the
					// end is the last measurement's, which starts from zero
					measurement, maxOK = f.Cell.Measurement, 0
				}
				maxOK = max(maxOK, f.Cell.OK)
			}
		case strings.HasPrefix(line, "data: ") && kind == "done":
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &end); err != nil {
				t.Fatal(err)
			}
		}
	}
	resp.Body.Close()
	status := wantStatus(t, codeOf(cmd.Wait()), stderr.String(), res)
	if !strings.Contains(stderr.String(), "live dashboard: http://"+addr+"/") {
		t.Errorf("stderr does not say where: %s", stderr.String())
	}
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Error("still listening after the run")
	}
	return maxOK, end, stderr.String(), status
}

// faasbench run --dashboard-listen: while a local-platform run goes, its
// event stream carries frames with the cell's requests, then the end with
// the summary's status and cells; the server is gone after the run; a taken
// port is exit 2 naming the flag. With two generator processes the frames
// count their shares too (their live messages, merged by the coordinator).
func TestRunServesALiveDashboard(t *testing.T) {
	for _, extra := range [][]string{nil, {"--generators", "2"}} {
		maxOK, end, stderr, status := dashboardRun(t, dashSpec, extra...)
		if maxOK == 0 {
			t.Errorf("%v: no frame showed the cell's requests\n%s", extra, stderr)
		}
		if end.Status != status || len(end.Cells) != 1 || end.Cells[0].ID != "hello-go/c=2/r=1" || end.Cells[0].Requests < maxOK {
			t.Errorf("%v: the end: %+v (frames saw up to %d ok)", extra, end, maxOK)
		}
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	code, errOut := runBinary(t, "run", writeSpec(t, dashSpec), "--results", t.TempDir(), "--workloads", workloadsDir(t), "--dashboard-listen", taken.Addr().String())
	if code != 2 || !strings.Contains(errOut, "--dashboard-listen "+taken.Addr().String()) {
		t.Errorf("taken port: exit %d\n%s", code, errOut)
	}
}
