package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// A function's TMPDIR (HOME/tmp) is bounded (issue 60: a function wrote
// 1 GiB there): when the platform is root it is a tmpfs of its own, of
// TmpSize bytes (FAASBENCH_TMP_MIB), owned by the function's uid, mounted
// when its HOME is made and unmounted when it goes. Its pages are the
// function's memory too (the kernel charges them to its cgroup). Without
// root there is no bound (said in docs/security.md).

// TmpSizeEnv sets the size of a function's TMPDIR in MiB.
const TmpSizeEnv = "FAASBENCH_TMP_MIB"

// DefaultTmpMiB is the size of a function's TMPDIR when TmpSizeEnv is unset.
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
// no setuid, no devices).
func mountTmp(dir string, size int64, uid, gid uint32) error {
	opts := fmt.Sprintf("size=%d,mode=0700,uid=%d,gid=%d", size, uid, gid)
	if err := syscall.Mount("faasbench-tmp", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return fmt.Errorf("stage: a TMPDIR of %d MiB at %s: %w", size>>20, dir, err)
	}
	return nil
}

// unmountTmp lets go of a HOME's tmpfs, if it has one (lazily: a process
// of the function that still holds it cannot keep the stage).
func unmountTmp(home string) {
	_ = syscall.Unmount(filepath.Join(home, "tmp"), syscall.MNT_DETACH)
}

// unmountHomes lets go of every HOME's tmpfs in a stage, before it is removed.
func unmountHomes(stageRoot string) {
	homes, _ := filepath.Glob(filepath.Join(stageRoot, "home", "*"))
	for _, h := range homes {
		unmountTmp(h)
	}
}
