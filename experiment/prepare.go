package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/faasbench/faasbench/dataset"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/upstream"
)

// Env is what ${...} in a spec resolves to during a run: the run's data
// directories (data.NAME), its services (upstream.url), then faasbench's
// own environment.
type Env struct {
	Vars map[string]string
	stop []func()
}

// Lookup resolves one name.
func (e *Env) Lookup(name string) (string, bool) {
	if v, ok := e.Vars[name]; ok {
		return v, true
	}
	if strings.HasPrefix(name, "data.") || strings.HasPrefix(name, "upstream.") {
		return "", false
	}
	return os.LookupEnv(name)
}

// Expand replaces ${...} in s.
func (e *Env) Expand(s string) string {
	return os.Expand(s, func(n string) string { v, _ := e.Lookup(n); return v })
}

// Close stops the services.
func (e *Env) Close() {
	for i := len(e.stop) - 1; i >= 0; i-- {
		e.stop[i]()
	}
	e.stop = nil
}

// Prepare generates the spec's data sets (or finds them in cacheDir, keyed
// by their parameters and the seed) and starts its services.
func Prepare(ctx context.Context, sp spec.Spec, cacheDir string) (*Env, error) {
	e := &Env{Vars: map[string]string{}}
	dirs := map[string]string{}
	for _, d := range sp.Data {
		dir, err := prepareData(ctx, d, uint64(sp.Seed), cacheDir)
		if err != nil {
			return nil, fmt.Errorf("data %s: %w", d.Name, err)
		}
		e.Vars["data."+d.Name] = dir
		dirs[d.Name] = dir
	}
	if sp.Services.Upstream {
		addr := sp.Services.Listen
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("upstream: %w", err)
		}
		srv := &http.Server{Handler: &upstream.Server{Dirs: dirs}, ReadHeaderTimeout: time.Minute}
		go func() { _ = srv.Serve(ln) }()
		e.Vars["upstream.url"] = "http://" + ln.Addr().String()
		e.stop = append(e.stop, func() {
			c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(c)
		})
	}
	return e, nil
}

// DataCacheDir is where generated data sets are kept: $FAASBENCH_CACHE/data,
// or, for root, /var/cache/faasbench/data (beside the Kubernetes builds):
// not under /root, which the local platform's instances, running as a user
// of their own, could not read; for another user, the user cache directory.
// Data sets are not secret: they are generated from a seed.
func DataCacheDir() string {
	if c := os.Getenv("FAASBENCH_CACHE"); c != "" {
		return filepath.Join(c, "data")
	}
	if os.Geteuid() == 0 {
		return "/var/cache/faasbench/data"
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "faasbench", "data")
	}
	return filepath.Join(os.TempDir(), "faasbench-data")
}

// prepareData generates one data set into cacheDir/<kind>-<hash>, unless a
// complete one is there already. It is generated in a directory of its own
// beside it and renamed into place whole, so that two runs on one machine
// (or two examples of the integration tests at once) preparing the same set
// never write into, or remove, the directory the other reads: the first to
// finish wins, the other's copy is removed.
func prepareData(ctx context.Context, d spec.DataSpec, seed uint64, cacheDir string) (string, error) {
	d.Name = "" // the name is the spec's handle, not a parameter: same data, same cache entry
	key, _ := json.Marshal(struct {
		spec.DataSpec
		Seed uint64
	}{d, seed})
	key = append(key, []byte("|v1")...)
	sum := sha256.Sum256(key)
	dir := filepath.Join(cacheDir, d.Kind+"-"+hex.EncodeToString(sum[:6]))
	if complete(dir) {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("data cache %s: %w", cacheDir, err)
	}
	part, err := os.MkdirTemp(cacheDir, filepath.Base(dir)+".part-")
	if err != nil {
		return "", fmt.Errorf("data cache %s: %w", cacheDir, err)
	}
	defer os.RemoveAll(part) // gone once renamed; else what a failure or a faster run left
	if err := generateData(ctx, d, seed, part); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(part, ".complete"), key, 0o644); err != nil {
		return "", err
	}
	err = os.Rename(part, dir)
	switch {
	case err == nil, complete(dir): // renamed into place, or another run's copy was first
		return dir, nil
	case !os.IsExist(err) && !errors.Is(err, syscall.ENOTEMPTY):
		return "", fmt.Errorf("data set %s: %w", dir, err)
	}
	// A directory without .complete: what a run killed mid-way left before data sets were
	// renamed into place. Never read; replaced.
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Rename(part, dir); err != nil && !complete(dir) {
		return "", fmt.Errorf("data set %s: %w", dir, err)
	}
	return dir, nil
}

// complete says whether dir holds a whole data set (.complete written last).
func complete(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".complete"))
	return err == nil
}

// generateData writes data set d into dir, readable by the local platform's
// instances whatever the umask.
func generateData(ctx context.Context, d spec.DataSpec, seed uint64, dir string) error {
	var err error
	switch d.Kind {
	case "images":
		_, err = dataset.Images(ctx, dir, dataset.ImageSpec{Count: d.Count, Seed: seed, Large: d.Side, Small: d.Side * 3 / 4})
	case "corpus":
		_, err = dataset.Corpus(ctx, dir, dataset.CorpusSpec{Docs: d.Docs, Words: d.Words, Seed: seed})
	case "text":
		sizes := make([]int64, len(d.SizesMB))
		for i, mb := range d.SizesMB {
			sizes[i] = int64(mb * (1 << 20))
		}
		_, err = dataset.Text(ctx, dir, seed, sizes)
	default:
		err = fmt.Errorf("unknown kind %q", d.Kind)
	}
	if err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, 0o644)
	})
}
