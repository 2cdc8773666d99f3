package local

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/faasbench/faasbench/internal/fileutil"
)

// What a function leaves behind when its instances are gone (issue 60):
// files in the machine's shared temporary places, SysV IPC objects, and,
// where no cgroup holds its processes (FAASBENCH_NO_CGROUPS=1), processes
// that left its process group (a setsid daemon). Its uid is a hash of its
// name, so the next function of that name would get the same uid and with
// it whatever the last one left: before a uid is given back, everything it
// owns in those places is removed, and the removal is said in the run's
// record (leftovers.jsonl in the platform's directory, read at Close).

// sharedTmp are the places any user may write that outlive a process.
var sharedTmp = []string{"/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue"}

// maxSweepEntries bounds one sweep's walk of the shared places.
const maxSweepEntries = 200000

// sweeper removes what a uid owns; its fields are the places it looks
// (tests point them elsewhere).
type sweeper struct {
	tmp  []string
	proc string // /proc
	ipc  string // /proc/sysvipc
	// skip are trees never walked (the daemon's own stage: a function's
	// HOME is removed with it).
	skip []string
}

func defaultSweeper(skip ...string) sweeper {
	return sweeper{tmp: sharedTmp, proc: "/proc", ipc: "/proc/sysvipc", skip: skip}
}

// sweep removes what each uid owns and returns what it removed, one line
// each, per uid: one scan of /proc, one read of the IPC tables and one walk
// of the shared places for them all (a burst of removals, a shutdown). gid
// is the group the process killer runs with.
func (sw sweeper) sweep(uids []uint32, gid uint32) map[uint32][]string {
	out := map[uint32][]string{}
	set := map[uint32]bool{}
	for _, u := range uids {
		set[u] = true
	}
	for uid, found := range sw.processesOfAny(set) {
		sw.killAll(uid, gid)
		out[uid] = append(out[uid], found...)
	}
	for uid, gone := range sw.removeIPC(set) {
		out[uid] = append(out[uid], gone...)
	}
	for uid, files := range sw.removeFiles(set) {
		out[uid] = append(out[uid], files...)
	}
	return out
}

// processesOf lists the live processes of uid (processesOfAny).
func (sw sweeper) processesOf(uid uint32) []string {
	return sw.processesOfAny(map[uint32]bool{uid: true})[uid]
}

// processesOfAny lists, per uid of the set, the live processes whose real,
// effective, saved or file system uid it is, as "process PID (comm)" (State
// comes before Uid in /proc/PID/status).
func (sw sweeper) processesOfAny(uids map[uint32]bool) map[uint32][]string {
	out := map[uint32][]string{}
	ents, err := os.ReadDir(sw.proc)
	if err != nil {
		return out
	}
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join(sw.proc, pid, "status"))
		if err != nil {
			continue
		}
		var name string
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Name:"); ok {
				name = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "State:"); ok && strings.HasPrefix(strings.TrimSpace(v), "Z") {
				break // a zombie: dead, only waiting for its parent
			}
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				for _, f := range strings.Fields(v) {
					if u, err := strconv.ParseUint(f, 10, 32); err == nil && uids[uint32(u)] {
						out[uint32(u)] = append(out[uint32(u)], fmt.Sprintf("process %s (%s)", pid, name))
						break
					}
				}
				break
			}
		}
	}
	return out
}

// killAll ends every process of uid: a helper running as uid sends SIGKILL
// to -1, which the kernel delivers to every process that uid may signal
// (all of its own, and no other's) in one call, so a process forking as
// fast as it can is not outrun by a scan.
func (sw sweeper) killAll(uid, gid uint32) {
	for range 3 {
		cmd := exec.Command("/bin/sh", "-c", "kill -KILL -1 2>/dev/null; exit 0")
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}}
		_ = cmd.Run()
		if sw.waitGone(uid, time.Second) {
			return
		}
	}
}

// waitGone waits, at most d, until no process of uid lives; it says
// whether none does.
func (sw sweeper) waitGone(uid uint32, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for len(sw.processesOf(uid)) > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// removeIPC removes the SysV shared memory segments, message queues and
// semaphore sets the uids own or created, per uid.
func (sw sweeper) removeIPC(uids map[uint32]bool) map[uint32][]string {
	out := map[uint32][]string{}
	for _, k := range []struct {
		file, id, what string
		rm             func(id int) syscall.Errno
	}{
		{"shm", "shmid", "shared memory segment", func(id int) syscall.Errno {
			_, _, e := syscall.Syscall(syscall.SYS_SHMCTL, uintptr(id), 0 /* IPC_RMID */, 0)
			return e
		}},
		{"msg", "msqid", "message queue", func(id int) syscall.Errno {
			_, _, e := syscall.Syscall(syscall.SYS_MSGCTL, uintptr(id), 0, 0)
			return e
		}},
		{"sem", "semid", "semaphore set", func(id int) syscall.Errno {
			_, _, e := syscall.Syscall6(syscall.SYS_SEMCTL, uintptr(id), 0, 0 /* IPC_RMID */, 0, 0, 0)
			return e
		}},
	} {
		for uid, ids := range ipcOfAny(filepath.Join(sw.ipc, k.file), k.id, uids) {
			for _, id := range ids {
				if e := k.rm(id); e == 0 {
					out[uid] = append(out[uid], fmt.Sprintf("SysV %s %d", k.what, id))
				} else {
					out[uid] = append(out[uid], fmt.Sprintf("SysV %s %d (not removed: %v)", k.what, id, e))
				}
			}
		}
	}
	return out
}

// ipcOfAny reads a /proc/sysvipc table and returns, per uid of the set,
// the ids it owns (uid) or, else, created (cuid).
func ipcOfAny(path, idCol string, uids map[uint32]bool) map[uint32][]int {
	out := map[uint32][]int{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() {
		return out
	}
	cols := map[string]int{}
	for i, h := range strings.Fields(sc.Text()) {
		cols[h] = i
	}
	ic, ok1 := cols[idCol]
	uc, ok2 := cols["uid"]
	cc, ok3 := cols["cuid"]
	if !ok1 || !ok2 || !ok3 {
		return out
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) <= max(ic, uc, cc) {
			continue
		}
		id, err := strconv.Atoi(f[ic])
		if err != nil {
			continue
		}
		for _, col := range []int{uc, cc} {
			if u, err := strconv.ParseUint(f[col], 10, 32); err == nil && uids[uint32(u)] {
				out[uint32(u)] = append(out[uint32(u)], id)
				break
			}
		}
	}
	return out
}

// removeFiles removes what the uids own in the shared places (a directory
// of one of them whole); links are removed, never followed.
func (sw sweeper) removeFiles(uids map[uint32]bool) map[uint32][]string {
	out := map[uint32][]string{}
	if len(uids) == 0 {
		return out
	}
	seen := 0
	for _, root := range sw.tmp {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if seen++; seen > maxSweepEntries {
				return filepath.SkipAll
			}
			for _, s := range sw.skip {
				if path == s {
					return filepath.SkipDir
				}
			}
			if path == root {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			st, ok := info.Sys().(*syscall.Stat_t)
			if !ok || !uids[st.Uid] {
				return nil
			}
			if err := os.RemoveAll(path); err != nil {
				out[st.Uid] = append(out[st.Uid], fmt.Sprintf("%s (not removed: %v)", path, err))
			} else {
				out[st.Uid] = append(out[st.Uid], path)
			}
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		})
	}
	if seen > maxSweepEntries {
		for u := range uids {
			out[u] = append(out[u], fmt.Sprintf("(the walk stopped after %d entries: more may be left)", maxSweepEntries))
		}
	}
	return out
}

// LeftoversFile is where a daemon records what functions left behind (a
// JSON object per line, in its work directory): the client reads it when
// the daemon has stopped (Platform.ClosedWarnings), so what the last
// functions left, removed at shutdown, reaches the run's record too.
const LeftoversFile = "leftovers.jsonl"

// Leftover is one function's removal.
type Leftover struct {
	Function string   `json:"function"`
	UID      uint32   `json:"uid"`
	Removed  []string `json:"removed"`
}

// noteLeftovers records what the sweep of fn's uid removed (nothing when
// it removed nothing).
func (s *Server) noteLeftovers(fn string, uid uint32, removed []string) {
	if len(removed) == 0 {
		return
	}
	const most = 20
	if len(removed) > most {
		removed = append(removed[:most:most], fmt.Sprintf("and %d more", len(removed)-most))
	}
	b, err := json.Marshal(Leftover{Function: fn, UID: uid, Removed: removed})
	if err != nil {
		return
	}
	s.leftMu.Lock()
	defer s.leftMu.Unlock()
	f, err := fileutil.OpenNoFollow(filepath.Join(s.cfg.WorkDir, LeftoversFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "local: leftovers of %s: %v\n", fn, err)
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}

// readLeftovers reads what a daemon recorded in dir, as warnings.
func readLeftovers(dir string) []string {
	f, err := fileutil.OpenNoFollow(filepath.Join(dir, LeftoversFile), os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l Leftover
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		out = append(out, fmt.Sprintf("function %s left behind what outlived its instances, removed before its uid %d was given back: %s", l.Function, l.UID, strings.Join(l.Removed, "; ")))
	}
	return out
}
