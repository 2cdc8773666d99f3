package local

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// DefaultInstanceUser is the uid:gid instances run as when the platform runs
// as root: a user of their own (not nobody, which other services share),
// unused on Debian, with no capabilities (a uid other than 0 loses them all
// at exec) and, through setpriv --no-new-privs, no way to gain any.
const DefaultInstanceUser = "65532:65532"

// InstanceUserEnv overrides DefaultInstanceUser (uid:gid).
const InstanceUserEnv = "FAASBENCH_INSTANCE_USER"

// identity is who instances run as.
type identity struct {
	uid, gid uint32
	// drop: the daemon is root and switches to uid:gid for every instance;
	// otherwise instances run as the daemon's own (unprivileged) user.
	drop bool
}

// UnisolatedEnv, set to 1, lets a platform that is not root run its
// functions as its own user (recorded as a warning): without it such a
// platform refuses to start, since every function could then read
// faasbench's own environment (/proc/PID/environ of the same user) and call
// its control API.
const UnisolatedEnv = "FAASBENCH_LOCAL_UNISOLATED"

// ErrNotIsolated is the refusal of a platform that is not root.
var ErrNotIsolated = fmt.Errorf("the local platform is not root, so it cannot run functions as users of their own: " +
	"every function would run as you, and could read faasbench's environment and call the platform's control API; " +
	"run faasbench as root (instances then run as uids of their own), or set " + UnisolatedEnv + "=1 to run them as you all the same (the run records it)")

// instanceIdentity parses uid:gid ("" for the default); a daemon that is
// not root cannot switch users: it refuses (ErrNotIsolated) unless
// UnisolatedEnv allows its instances to run as itself.
func instanceIdentity(spec string) (identity, error) {
	if os.Geteuid() != 0 {
		if os.Getenv(UnisolatedEnv) != "1" {
			return identity{}, ErrNotIsolated
		}
		return identity{uid: uint32(os.Geteuid()), gid: uint32(os.Getegid())}, nil
	}
	if spec == "" {
		spec = DefaultInstanceUser
	}
	u, g, ok := strings.Cut(spec, ":")
	uid, err1 := strconv.ParseUint(u, 10, 32)
	gid, err2 := strconv.ParseUint(g, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return identity{}, fmt.Errorf("instance user %q: want uid:gid (numbers)", spec)
	}
	if uid == 0 || gid == 0 {
		return identity{}, fmt.Errorf("instance user %q: instances never run as root (uid or gid 0)", spec)
	}
	return identity{uid: uint32(uid), gid: uint32(gid), drop: true}, nil
}

func (id identity) String() string {
	if !id.drop {
		return fmt.Sprintf("%d:%d (the platform's own user: it is not root)", id.uid, id.gid)
	}
	return fmt.Sprintf("%d:%d", id.uid, id.gid)
}

// canRead says whether the identity can read path (and search every
// directory above it), from the mode bits (ACLs are not consulted).
func (id identity) canRead(path string, exec bool) error {
	if !id.drop {
		return nil
	}
	want := uint32(4)
	if exec {
		want = 5
	}
	for p := path; ; p = parent(p) {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		need := want
		if p != path {
			need = 1 // search
		}
		shift := uint32(0)
		switch {
		case st.Uid == id.uid:
			shift = 6
		case st.Gid == id.gid:
			shift = 3
		}
		if (st.Mode>>shift)&need != need {
			return fmt.Errorf("%s (mode %o, owner %d:%d) is closed to the instance user %s", p, st.Mode&0o7777, st.Uid, st.Gid, id)
		}
		if p == "/" {
			return nil
		}
	}
}

func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}
