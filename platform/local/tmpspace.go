package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// What a function may write is bounded (issue 60: a function wrote 1 GiB
// into its TMPDIR): when the platform is root its HOME, with its TMPDIR
// (HOME/tmp) inside, is a tmpfs of its own of FAASBENCH_TMP_MIB, owned by
// the function's uid, mounted when the HOME is made and unmounted when it
// goes. Its pages are the function's memory too (the kernel charges them
// to its cgroup). Without root there is no bound (docs/security.md).

// TmpSizeEnv sets the size of a function's HOME and TMPDIR in MiB.
const TmpSizeEnv = "FAASBENCH_TMP_MIB"

// DefaultTmpMiB is the size of a function's HOME and TMPDIR when TmpSizeEnv
// is unset.
const DefaultTmpMiB = 512

// tmpBytes reads TmpSizeEnv.
func tmpBytes() (int64, error) {
	v := os.Getenv(TmpSizeEnv)
	if v == "" {
		return DefaultTmpMiB << 20, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > 1<<20 {
		return 0, fmt.Errorf("%s %q: want MiB, 1..1048576", TmpSizeEnv, v)
	}
	return n << 20, nil
}

// mountTmp mounts a tmpfs of size bytes at dir for uid:gid (mode 0700,
// no setuid, no devices): a function's HOME.
func mountTmp(dir string, size int64, uid, gid uint32) error {
	opts := fmt.Sprintf("size=%d,mode=0700,uid=%d,gid=%d", size, uid, gid)
	if err := syscall.Mount("faasbench-tmp", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return fmt.Errorf("stage: a HOME of %d MiB at %s: %w", size>>20, dir, err)
	}
	return nil
}

// unmountHome lets go of a HOME's tmpfs, if it has one (lazily: a process
// of the function that still holds it cannot keep the stage).
func unmountHome(home string) {
	_ = syscall.Unmount(home, syscall.MNT_DETACH)
}

// unmountHomes lets go of every HOME's tmpfs in a stage, before it is removed.
func unmountHomes(stageRoot string) {
	homes, _ := filepath.Glob(filepath.Join(stageRoot, "home", "*"))
	for _, h := range homes {
		unmountHome(h)
	}
}

// MinFileBound is the least bound on one file's size (boundFileSize): the
// daemon builds Go functions and writes their binaries under it.
const MinFileBound = 1 << 30

// boundFileSize bounds the size of any one file the daemon and what it
// starts (every instance inherits it) may write to n bytes (RLIMIT_FSIZE):
// outside its HOME a function can write into the machine's shared places
// (/tmp, /var/tmp) while it runs, and there no tmpfs of its own bounds it.
// A write past it fails (SIGXFSZ ends a process that does not ignore it).
// The daemon's own files are far smaller: logs are capped (caplog.go).
func boundFileSize(n int64) error {
	lim := syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &cur); err == nil && cur.Max < lim.Max {
		lim = cur // already lower: kept
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("file size bound of %d MiB: %w", n>>20, err)
	}
	return nil
}
