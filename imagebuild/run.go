package imagebuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// runScript mounts the stage's overlay (its base below, its changes above) in a private mount
// namespace, gives it /proc, /dev and the machine's resolv.conf (RUN steps reach the package
// registries), the machine's CA bundle on a tmpfs at /run/faasbench-build (where this machine's
// registries are reached through a TLS-inspecting proxy, pip and npm in the chroot must trust what
// the machine trusts), and for a host base the machine's Go caches (as BuildKit's cache and secret
// mounts: none of it enters the image), then runs the command chrooted in it. Everything mounted
// ends with the process.
const runScript = `set -e
L=$1 U=$2 W=$3 M=$4 WD=$5 USERSPEC=$6 HOSTBASE=$7 CA=$8; shift 8
mount -t overlay overlay -o "lowerdir=$L,upperdir=$U,workdir=$W" "$M"
[ -d "$M/proc" ] && mount -t proc proc "$M/proc"
[ -d "$M/dev" ] && mount --rbind /dev "$M/dev"
[ -f "$M/etc/resolv.conf" ] && mount --bind /etc/resolv.conf "$M/etc/resolv.conf"
if [ -n "$CA" ] && [ "$HOSTBASE" != 1 ] && [ -d "$M/run" ]; then
  mount -t tmpfs -o mode=0755 tmpfs "$M/run" && mkdir "$M/run/faasbench-build" && cp "$CA" "$M/run/faasbench-build/ca.crt"
fi
if [ "$HOSTBASE" = 1 ]; then
  for d in "$GOCACHE" "$GOMODCACHE"; do [ -n "$d" ] && [ -d "$d" ] && mount --bind "$d" "$M$d"; done
fi
[ -d "$M$WD" ] || mkdir -p "$M$WD"
exec chroot ${USERSPEC:+--userspec="$USERSPEC"} "$M" /bin/sh -c 'cd "$0" && exec "$@"' "$WD" "$@"
`

// machineCA is the CA bundle this machine's TLS clients use ($SSL_CERT_FILE, else Debian's).
func machineCA() string {
	for _, p := range []string{os.Getenv("SSL_CERT_FILE"), "/etc/ssl/certs/ca-certificates.crt"} {
		if st, err := os.Stat(p); p != "" && err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// run executes a RUN step in the stage.
func (b *Builder) run(ctx context.Context, s *stage, argv []string) error {
	wd := s.cfg.WorkingDir
	if wd == "" {
		wd = "/"
	}
	user := s.cfg.User
	if user == "root" || user == "0" {
		user = ""
	}
	if s.base.Kind == BaseScratch || s.base.Kind == BaseStatic {
		return fmt.Errorf("FROM %s has no shell to run %q in", s.From, strings.Join(argv, " "))
	}
	hostBase := "0"
	env := append([]string{"HOME=/root"}, s.cfg.Env...)
	if s.base.Kind == BaseHost {
		hostBase = "1"
		if out, err := exec.CommandContext(ctx, "go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
			if dirs := strings.Split(strings.TrimSpace(string(out)), "\n"); len(dirs) == 2 {
				env = append(env, "GOCACHE="+dirs[0], "GOMODCACHE="+dirs[1])
			}
		}
		env = append(env, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
		if p := os.Getenv("GOPROXY"); p != "" {
			env = append(env, "GOPROXY="+p)
		}
	}
	ca := machineCA()
	if ca != "" && s.base.Kind != BaseHost {
		const inChroot = "/run/faasbench-build/ca.crt"
		for _, k := range []string{"SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "npm_config_cafile"} {
			env = append(env, k+"="+inChroot)
		}
	}
	args := append([]string{"--mount", "--propagation", "private", "/bin/sh", "-c", runScript, "run",
		s.lower, s.upper(), filepath.Join(s.dir, "work"), filepath.Join(s.dir, "merged"), wd, user, hostBase, ca}, argv...)
	cmd := exec.CommandContext(ctx, "unshare", args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = b.Log, b.Log
	fmt.Fprintf(b.Log, "imagebuild: RUN %s\n", strings.Join(argv, " "))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%q: %w", strings.Join(argv, " "), err)
	}
	return nil
}
