package local

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// DefaultInstanceUIDs is the block of uids faasbench gives its functions,
// base:count: each deployed function runs as a uid of its own, so that no
// function can read another's /proc/PID/environ or descriptors, trace it or
// signal it (the kernel allows those only to the same uid). It is far above
// the ranges Debian gives users (1000-59999), systemd's dynamic users
// (61184-65519) and the subordinate ranges /etc/subuid hands out (from
// 100000, 65536 at a time).
const DefaultInstanceUIDs = "2147418112:65536"

// InstanceUIDsEnv overrides DefaultInstanceUIDs.
const InstanceUIDsEnv = "FAASBENCH_INSTANCE_UIDS"

// uidLockDirs are where the leases live (the first that can be made, owned
// by root and closed to others): one file per uid, flock-ed while a
// daemon's function runs as it, so concurrent daemons never share a uid and
// a killed daemon's uids free themselves (the kernel drops its locks).
var uidLockDirs = []string{"/run/faasbench/uids", filepath.Join(os.TempDir(), "faasbench-uids")}

// uidPool leases uids of its block to functions.
type uidPool struct {
	// alive says whether a process of uid lives (nil: none is looked for).
	alive       func(uid uint32) bool
	dir         string
	base, count uint32
	mu          sync.Mutex
	held        map[uint32]*os.File
}

// newUIDPool parses base:count ("" for the default) and opens the lease
// directory.
func newUIDPool(spec string) (*uidPool, error) {
	if spec == "" {
		spec = DefaultInstanceUIDs
	}
	b, c, ok := strings.Cut(spec, ":")
	base, err1 := strconv.ParseUint(b, 10, 32)
	count, err2 := strconv.ParseUint(c, 10, 32)
	if !ok || err1 != nil || err2 != nil || count == 0 || base < 65536 || base+count > 1<<32-2 {
		return nil, fmt.Errorf("%s %q: want base:count, numbers, the block above 65535 and below 2^32-2", InstanceUIDsEnv, spec)
	}
	var errs []error
	for _, d := range uidLockDirs {
		if err := privateDir(d); err != nil {
			errs = append(errs, err)
			continue
		}
		sw := defaultSweeper()
		alive := func(uid uint32) bool { return len(sw.processesOf(uid)) > 0 }
		return &uidPool{alive: alive, dir: d, base: uint32(base), count: uint32(count), held: map[uint32]*os.File{}}, nil
	}
	return nil, fmt.Errorf("no directory for the functions' uid leases: %w", errors.Join(errs...))
}

// privateDir makes dir (0700, root's) or checks that it is: a directory
// another user made or can write would let them take uids.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR || st.Uid != 0 || st.Mode&0o022 != 0 {
		return fmt.Errorf("%s is not a directory of root's closed to others (owner %d, mode %o)", dir, st.Uid, st.Mode&0o7777)
	}
	return nil
}

// take leases a free uid of the block for the function name (a search
// that starts at a hash of the name, so a function tends to keep its uid).
func (p *uidPool) take(name string) (uint32, error) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	start := h.Sum32() % p.count
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := uint32(0); i < p.count; i++ {
		uid := p.base + (start+i)%p.count
		if p.held[uid] != nil || (p.alive != nil && p.alive(uid)) {
			continue // a uid is never reused while a process of it lives
		}
		f, err := os.OpenFile(filepath.Join(p.dir, strconv.FormatUint(uint64(uid), 10)), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return 0, fmt.Errorf("uid lease: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue // another daemon's function has it
			}
			return 0, fmt.Errorf("uid lease: %w", err)
		}
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+name+"\n"), 0)
		p.held[uid] = f
		return uid, nil
	}
	return 0, fmt.Errorf("every uid of %s %d:%d is leased (a function each, across every daemon)", InstanceUIDsEnv, p.base, p.count)
}

// give returns a lease.
func (p *uidPool) give(uid uint32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f := p.held[uid]; f != nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		delete(p.held, uid)
	}
}

// close returns every lease.
func (p *uidPool) close() {
	p.mu.Lock()
	uids := make([]uint32, 0, len(p.held))
	for u := range p.held {
		uids = append(uids, u)
	}
	p.mu.Unlock()
	for _, u := range uids {
		p.give(u)
	}
}
