package local

import (
	"errors"
	"fmt"
	"github.com/faasbench/faasbench/internal/fileutil"
	"github.com/faasbench/faasbench/internal/reaper"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// stage is the directory instances read their code from: copies of the
// workloads' implementations and language runtimes, build products, the
// fork-mode watchdog and the instances' HOME. It is the only part of the
// file system the platform opens to the instance user (mode 0750, group the
// instance group): the catalogue, the run directory and the owner's files
// stay closed to functions. Removed when the daemon stops.
type stage struct {
	root string
	id   identity
	mu   sync.Mutex
	done map[string]bool // what was copied, by path under root
}

// stageRecord names the file in the work directory that holds the stage's path.
const stageRecord = "stage"

// removeStage removes the stage recorded in workDir, if the daemon left it
// (it was killed): only a directory named as newStage names them.
func removeStage(workDir string) error {
	b, err := os.ReadFile(filepath.Join(workDir, stageRecord))
	if err != nil {
		return nil
	}
	dir := filepath.Clean(string(b))
	if filepath.Dir(dir) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(dir), stagePrefix) {
		return fmt.Errorf("stage record %q is not a stage", dir)
	}
	unmountHomes(dir)
	return os.RemoveAll(dir)
}

// stagePrefix begins the name of every stage in the temporary directory.
const stagePrefix = "faasbench-fn-"

// stageOwner names the file in a stage that says which daemon made it: its
// pid and start time (reaper.StartTime), so that a later daemon can tell a
// stage whose daemon is gone (killed, its work directory removed before its
// client could clean up) from one in use.
const stageOwner = ".owner"

// sweepStages removes the stages in the temporary directory whose daemon is
// gone: each a directory (not a link) of this user's, with an owner record
// naming a process that no longer runs. A stage without a record (a daemon
// still making it, or one from before records were kept) is left. It returns
// the stages removed.
func sweepStages() ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), stagePrefix+"*"))
	if err != nil {
		return nil, fmt.Errorf("stage sweep: %w", err)
	}
	var gone []string
	var errs []error
	for _, dir := range dirs {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		if sys, ok := fi.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() {
			continue
		}
		pid, start, ok := readOwner(filepath.Join(dir, stageOwner))
		if !ok || reaper.Running(pid, start) {
			continue
		}
		unmountHomes(dir)
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("stage sweep: %w", err))
			continue
		}
		gone = append(gone, dir)
	}
	return gone, errors.Join(errs...)
}

// readOwner reads a stage's owner record: "PID START".
func readOwner(path string) (pid int, start uint64, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 64 {
		return 0, 0, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0, false
	}
	pid, err = strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return pid, start, true
}

func newStage(id identity) (*stage, error) {
	dir, err := os.MkdirTemp("", stagePrefix)
	if err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	st := &stage{root: dir, id: id, done: map[string]bool{}}
	if err := st.open(dir, 0o750); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	start, err := reaper.StartTime(os.Getpid())
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, stageOwner), []byte(fmt.Sprintf("%d %d\n", os.Getpid(), start)), 0o600)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("stage: owner: %w", err)
	}
	for _, d := range []string{"bin", "code"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("stage: %w", err)
		}
	}
	// home/ holds a HOME of its own per function (funcHome): searchable, not
	// listable, by the instance users; each HOME closed to every other.
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o711); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("stage: %w", err)
	}
	if err := os.Chmod(home, 0o711); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("stage: %w", err)
	}
	return st, nil
}

// funcHome makes a deployment's HOME (home/<dir>), with its TMPDIR inside,
// afresh: mode 0700, owned by the function's uid when instances run as
// users of their own. No other function can read or write it, so nothing
// one writes there (a Python .pth file, a Node module) is loaded by another.
// With users of their own (root), the HOME is a tmpfs of tmpSize bytes,
// its TMPDIR inside (tmpspace.go): all a function may write is bounded.
func (st *stage) funcHome(dir string, uid, gid uint32, own bool, tmpSize int64) (string, error) {
	h := filepath.Join(st.root, "home", dir)
	unmountHome(h)
	if err := os.RemoveAll(h); err != nil {
		return "", fmt.Errorf("stage: %w", err)
	}
	for i, d := range []string{h, filepath.Join(h, "tmp")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return "", fmt.Errorf("stage: %w", err)
		}
		if i == 0 && own && tmpSize > 0 {
			if err := mountTmp(h, tmpSize, uid, gid); err != nil {
				_ = os.RemoveAll(h)
				return "", err
			}
		}
		if own {
			if err := os.Chown(d, int(uid), int(gid)); err != nil {
				unmountHome(h)
				return "", fmt.Errorf("stage: %w", err)
			}
		}
	}
	return h, nil
}

// dropHome removes a HOME funcHome made.
func (st *stage) dropHome(home string) {
	if filepath.Dir(home) == filepath.Join(st.root, "home") {
		unmountHome(home)
		_ = os.RemoveAll(home)
	}
}

// open gives the instance group access to dir (when instances run as a
// user of their own).
func (st *stage) open(dir string, mode os.FileMode) error {
	if st.id.drop {
		if err := os.Chown(dir, 0, int(st.id.gid)); err != nil {
			return fmt.Errorf("stage: %w", err)
		}
	}
	if err := os.Chmod(dir, mode); err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	return nil
}

func (st *stage) bin() string { return filepath.Join(st.root, "bin") }

// close removes the stage.
func (st *stage) close() error {
	unmountHomes(st.root)
	return os.RemoveAll(st.root)
}

// copyTree copies root/rel into the stage's code/rel once and returns the
// copy's path. Only regular files and directories are copied; a symbolic
// link is copied as a link when what it points to stays inside root/rel,
// and refused otherwise, as is anything else (devices, sockets, FIFOs).
func (st *stage) copyTree(root, rel string) (string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	dst := filepath.Join(st.root, "code", rel)
	if st.done[rel] {
		return dst, nil
	}
	src, err := within(root, rel)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("stage: %w", err)
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, r)
		switch t := d.Type(); {
		case t.IsDir():
			return os.MkdirAll(out, 0o755)
		case t&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if !inside(src, target) {
				return fmt.Errorf("%s links to %s, outside %s", p, target, src)
			}
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if filepath.IsAbs(link) {
				rt, _ := filepath.Rel(src, target)
				link, _ = filepath.Rel(filepath.Dir(out), filepath.Join(dst, rt))
			}
			return os.Symlink(link, out)
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return fileutil.Copy(p, out, 0o644|(info.Mode().Perm()&0o111))
		default:
			return fmt.Errorf("%s is not a regular file or directory", p)
		}
	})
	if err != nil {
		_ = os.RemoveAll(dst)
		return "", fmt.Errorf("stage %s: %w", rel, err)
	}
	st.done[rel] = true
	return dst, nil
}

// copyExecutable copies an executable into the stage's bin once, execute-only
// (0711): an instance may run it but not read it, which keeps the instance
// non-dumpable (nondump.go).
func (st *stage) copyExecutable(path, name string) (string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	dst := filepath.Join(st.bin(), name)
	if st.done["bin/"+name] {
		return dst, nil
	}
	if err := fileutil.Copy(path, dst, 0o711); err != nil {
		return "", fmt.Errorf("stage: %w", err)
	}
	st.done["bin/"+name] = true
	return dst, nil
}

// within resolves root/rel (symbolic links included) and refuses a result
// outside root: a workload or file path from a request never leaves its root.
func within(root, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", fmt.Errorf("path %q: want a path relative to %s", rel, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	p, err := filepath.EvalSymlinks(filepath.Join(realRoot, rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist under %s", rel, root)
		}
		return "", err
	}
	if !inside(realRoot, p) {
		return "", fmt.Errorf("path %q leaves %s (it resolves to %s)", rel, root, p)
	}
	return p, nil
}

// inside says whether p is root or below it (both resolved).
func inside(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../") && !filepath.IsAbs(r)
}
