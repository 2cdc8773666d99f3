package distrib

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/internal/canned"
	"github.com/faasbench/faasbench/load"
)

// cannedServe is the test binary as a canned HTTP/1.1 server in a process
// of its own (`<test binary> canned-server`): it prints its address and
// answers every request from a fixed buffer, so that what the benchmarks
// below measure is the generators' CPU, not the server's.
func cannedServe() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	reply := []byte("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\npong")
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			canned.Serve(c, reply)
		}()
	}
}

func startCanned(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "canned-server")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return "http://" + strings.TrimSpace(addr) + "/f"
}

// cpuOf is the CPU time (user+system) of pid so far, from /proc.
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ 100
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGeneratorCost is the CPU a load costs per 100,000 requests:
// sent by this process (no coordination), by one agent process and by
// three, counting the coordinator's and the agents' CPU; and the time the
// coordinator spends between the load's end and the merged result. A closed
// loop of 8 workers against a canned server in another process, 100,000
// requests per iteration. Prints figures; asserts nothing about speed.
//
//	go test -run '^$' -bench GeneratorCost -benchtime 3x ./distrib/
func BenchmarkGeneratorCost(b *testing.B) {
	url := startCanned(b)
	const n = 100_000
	ex := load.Closed{Concurrency: 8, Requests: n}
	for _, gens := range []int{0, 1, 3} {
		name := "direct"
		if gens > 0 {
			name = fmt.Sprintf("agents=%d", gens)
		}
		b.Run(name, func(b *testing.B) {
			var d experiment.Driver = experiment.LocalDriver{}
			var pids []int
			if gens > 0 {
				o, _ := Origin(url)
				co, err := Local{Exe: os.Args[0], N: gens, Allow: []string{o}}.Start(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				defer co.Close()
				for _, c := range co.conns {
					pids = append(pids, c.hello.Pid)
				}
				d = Driver{Launch: func(context.Context, []string) (*Coordinator, error) { return co, nil }}
			}
			ses := d.Session(load.Options{})
			var coord, agents time.Duration
			var wire int
			b.ResetTimer()
			for range b.N {
				s0 := selfCPU()
				var a0 time.Duration
				for _, p := range pids {
					a0 += cpuOf(p)
				}
				dr, err := ses.Drive(context.Background(), ex, load.Target{URL: url})
				if err != nil || dr.Result.Total() != n {
					b.Fatalf("%v, %d requests", err, dr.Result.Total())
				}
				coord += selfCPU() - s0
				for _, p := range pids {
					agents += cpuOf(p)
				}
				agents -= a0
				if w, err := dr.Result.ToWire(); err == nil {
					j, _ := json.Marshal(w)
					wire = len(j)
				}
			}
			b.StopTimer()
			per := float64(b.N)
			b.ReportMetric(float64(coord.Milliseconds())/per, "coordinator-cpu-ms/100k")
			b.ReportMetric(float64(agents.Milliseconds())/per, "agents-cpu-ms/100k")
			b.ReportMetric(float64((coord+agents).Milliseconds())/per, "total-cpu-ms/100k")
			b.ReportMetric(float64(wire)/1024, "report-KiB")
		})
	}
}

// BenchmarkMergeGenerators is the coordinator's work when the reports of
// N generators arrive: each report decoded from its JSON (histograms of
// 1,000,000 latencies over 60 seconds of windows per generator) and all
// merged into the cell's result. Merge time grows linearly with N.
//
//	go test -run '^$' -bench MergeGenerators ./distrib/
func BenchmarkMergeGenerators(b *testing.B) {
	one := syntheticResult(1_000_000, 60)
	w, err := one.ToWire()
	if err != nil {
		b.Fatal(err)
	}
	msg, err := json.Marshal(&Msg{Type: "report", Report: &Report{Result: w}})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("generators=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				parts := make([]*load.Result, n)
				for i := range parts {
					var m Msg
					if err := json.Unmarshal(msg, &m); err != nil {
						b.Fatal(err)
					}
					r, err := m.Report.Result.FromWire()
					if err != nil {
						b.Fatal(err)
					}
					parts[i] = r
				}
				if _, err := load.MergeResults(parts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(msg))/1024, "report-KiB")
		})
	}
}

// syntheticResult is a closed-loop result of n successes spread over the
// given seconds, latencies from 0.1 to 100 ms.
func syntheticResult(n int, seconds int) *load.Result {
	rec := load.NewRecorder(time.Duration(seconds) * time.Second)
	rec.Closed = true
	for i := range n {
		at := time.Duration(int64(i) * int64(seconds) * int64(time.Second) / int64(n))
		lat := time.Duration(100_000 + (i*7919)%100_000_000)
		rec.Record(&load.Sample{Intended: at, Sent: at, FirstByte: at + lat, Done: at + lat, Status: 200, Class: load.ClassOK})
	}
	return &load.Result{Recorder: rec, Start: time.Now()}
}
