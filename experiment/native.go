package experiment

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/cppbuild"
	"github.com/faasbench/faasbench/load"
)

// A native baseline (batch.native: seed 000's "OpenMP C++" on the bare host) runs the workload's
// native program, <catalogue>/<workload>/cpp/native.cpp (on the frame runtime/cpp/native.hpp),
// once over the batch's items: built with
// g++ -O2 -fopenmp (and Magick++ when it includes it), started on the platform's CPUs with one
// OpenMP thread per CPU, the items as files on its command line, the request's query in Http_Query (as a watchdog gives it).
// It prints "item INDEX START_NS END_NS BYTES" per item and "total NS" (monotonic, from its start).

// nativeRun is one run of a native program: the items' samples and the
// whole run's time.
type nativeRun struct {
	res     *load.Result
	total   time.Duration
	bytes   int64
	done    int64
	threads int
}

// nativeProgram builds (once per source: cached by its hash under the data cache) the workload's
// native program and returns its path.
func nativeProgram(ctx context.Context, catalogRoot, workload string) (string, error) {
	dir := filepath.Join(catalogRoot, workload, "cpp")
	src := filepath.Join(dir, "native.cpp")
	if _, err := os.Stat(src); err != nil {
		return "", fmt.Errorf("batch.native: workload %q has no native program (%s): only a workload with cpp/native.cpp has a bare-host baseline", workload, src)
	}
	h := sha256.New()
	// Its sources: the workload's C++ files and the frame every native program includes.
	srcs, _ := filepath.Glob(filepath.Join(dir, "*.[ch]pp"))
	frame, _ := filepath.Glob(filepath.Join(catalogRoot, "runtime", "cpp", "*.hpp"))
	srcs = append(srcs, frame...)
	for _, f := range srcs {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("batch.native: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	cache := filepath.Join(DataCacheDir(), "native")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("batch.native: %w", err)
	}
	bin := filepath.Join(cache, workload+"-"+hex.EncodeToString(h.Sum(nil))[:12])
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	if err := cppbuild.Build(ctx, src, tmp, "-fopenmp"); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("batch.native: %w", err)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("batch.native: %w", err)
	}
	return bin, nil
}

// itemFiles writes the items to files in dir, one file for items that share their bytes (the
// copies of one request body), and returns each item's path.
func itemFiles(dir string, items [][]byte) ([]string, error) {
	paths := make([]string, len(items))
	for i, it := range items {
		if i > 0 && len(it) == len(items[i-1]) && (len(it) == 0 || &it[0] == &items[i-1][0]) {
			paths[i] = paths[i-1]
			continue
		}
		p := filepath.Join(dir, "item-"+strconv.Itoa(i))
		if err := os.WriteFile(p, it, 0o600); err != nil {
			return nil, fmt.Errorf("batch.native: %w", err)
		}
		paths[i] = p
	}
	return paths, nil
}

// startPinned starts cmd with its CPU affinity set to cpus (none: the machine's): the process
// is forked from a thread pinned for it, which is then let go with its goroutine.
func startPinned(cmd *exec.Cmd, cpus []int) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if len(cpus) > 0 {
			var set unix.CPUSet
			for _, c := range cpus {
				set.Set(c)
			}
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				errc <- fmt.Errorf("batch.native: pin to CPUs %s: %w", affinity.Format(cpus), err)
				return
			}
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

// runNative runs the workload's native program over items on cpus (query: the request's).
func runNative(ctx context.Context, catalogRoot, workload, query string, items [][]byte, cpus []int) (*nativeRun, error) {
	bin, err := nativeProgram(ctx, catalogRoot, workload)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "faasbench-native-")
	if err != nil {
		return nil, fmt.Errorf("batch.native: %w", err)
	}
	defer os.RemoveAll(dir)
	paths, err := itemFiles(dir, items)
	if err != nil {
		return nil, err
	}
	threads := len(cpus)
	if threads == 0 {
		threads = runtime.NumCPU()
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"-t", strconv.Itoa(threads)}, paths...)...)
	// Its own environment, not faasbench's: the query, the thread count, a PATH.
	cmd.Env = []string{"Http_Query=" + query, "OMP_NUM_THREADS=" + strconv.Itoa(threads), "PATH=/usr/bin:/bin"}
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	started := time.Now()
	if err := startPinned(cmd, cpus); err != nil {
		return nil, fmt.Errorf("batch.native: start %s: %w", bin, err)
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	run, perr := parseNative(&stdout, started)
	if werr != nil {
		return run, fmt.Errorf("batch.native: %s: %w: %s", filepath.Base(bin), werr, strings.TrimSpace(stderr.String()))
	}
	if perr != nil {
		return nil, perr
	}
	run.threads = threads
	return run, nil
}

// parseNative reads the program's lines into a result: each item a
// success whose latency is its own time.
func parseNative(r io.Reader, started time.Time) (*nativeRun, error) {
	rec := load.NewRecorder(time.Minute)
	rec.Closed = true
	run := &nativeRun{}
	sc := bufio.NewScanner(r)
	sawTotal := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 5 && f[0] == "item":
			var v [4]int64
			for i := range v {
				n, err := strconv.ParseInt(f[i+1], 10, 64)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("batch.native: bad line %q", sc.Text())
				}
				v[i] = n
			}
			if v[2] < v[1] {
				return nil, fmt.Errorf("batch.native: an item ends before it starts: %q", sc.Text())
			}
			s := load.Sample{Intended: time.Duration(v[1]), Sent: time.Duration(v[1]), Done: time.Duration(v[2]), Class: load.ClassOK,
				Status: 200, BytesOut: v[3], HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1, GwSetupNs: -1}
			rec.Record(&s)
			run.bytes += v[3]
			run.done++
		case len(f) == 2 && f[0] == "total":
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("batch.native: bad line %q", sc.Text())
			}
			run.total, sawTotal = time.Duration(n), true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("batch.native: %w", err)
	}
	if !sawTotal {
		return nil, errors.New("batch.native: the program printed no total")
	}
	run.res = &load.Result{Recorder: rec, Start: started, Elapsed: run.total, Workers: 1}
	return run, nil
}
