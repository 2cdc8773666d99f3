package local

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/faasbench/faasbench/internal/reaper"
)

// An instance's environment is built, never inherited: a minimal base, what
// the platform gives every function (FB_*), and what the function's spec
// gives it. Nothing of faasbench's own environment (API keys, database
// passwords, OPENWHISK_AUTH) reaches a function unless its spec names it.

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// platformEnv are the names the platform sets for every instance: a spec
// may not set them.
var platformEnv = []string{"FB_READY_FD", "FB_PORT", "FB_HOST", "FB_INSTANCE_ID", "FB_WORKERS", "FB_GATEWAY_URL",
	"FB_FUNCTION_NAME", RoleEnv, reaper.EnvVar, "PATH", "HOME", "LANG",
	// Where a Kubernetes platform mounts secrets, and which of them a runtime reads (#60: set by a spec, a
	// directory of its own put LD_PRELOAD and OPENSSL_CONF into the environment past the allow-list).
	"FB_SECRETS_DIR", "FB_SECRETS"}

// loaderEnv are names that change what code a process or its runtime loads
// (the dynamic loader, the interpreters, the JVM, the shell): a spec may not
// set them.
var loaderEnv = []string{"GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "MALLOC_CHECK_", "TMPDIR",
	"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONUSERBASE", "PYTHONPLATLIBDIR", "PYTHONEXECUTABLE", "PYTHONBREAKPOINT",
	"NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "JAVA_HOME",
	"BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS", "PS4", "CDPATH", "GODEBUG", "GOENV"}

// loaderPrefixes are prefixes of such names (LD_PRELOAD, LD_LIBRARY_PATH,
// LD_AUDIT, ...; MALLOC_* tunables; glibc's GLIBC_TUNABLES).
var loaderPrefixes = []string{"LD_", "MALLOC_", "GLIBC_", "BASH_FUNC_"}

// CheckEnv refuses environment names a function's spec may not set, naming
// each and why. It is an allow-list: FB_* names (what faasbench's workloads
// read), less the platform's own; the loader names above are refused by
// name first, so the message says why. A deny-list missed OPENSSL_CONF
// (a config that loads a provider .so into any Python that imports ssl):
// the runtimes read more such names than any list keeps up with
// (OPENSSL_*, SSL_*, PYTHON*, NODE_*, JAVA_*, LD_*, GCONV_PATH, ...).
func CheckEnv(env map[string]string) error {
	var bad []string
	for k, v := range env {
		switch {
		case !envNameRE.MatchString(k):
			bad = append(bad, fmt.Sprintf("%q is not an environment variable name", k))
		case contains(platformEnv, k):
			bad = append(bad, fmt.Sprintf("%s is set by the platform", k))
		case contains(loaderEnv, k) || hasAnyPrefix(k, loaderPrefixes):
			bad = append(bad, fmt.Sprintf("%s changes how a process loads its code", k))
		case !strings.HasPrefix(k, "FB_"):
			bad = append(bad, fmt.Sprintf("%s is not a name a function may be given: a spec sets FB_* names only (the names faasbench's workloads read; others, such as OPENSSL_CONF, change what a runtime loads)", k))
		case strings.ContainsRune(v, 0):
			bad = append(bad, fmt.Sprintf("%s: the value holds a NUL byte", k))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("env: %s", strings.Join(bad, "; "))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// instancePath is the PATH every instance gets (Docker's default).
const instancePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// baseEnv is the minimal environment of an instance: PATH, HOME, LANG and
// the run's marker (so that no process of the run outlives it).
func baseEnv(home string) []string {
	// TMPDIR is the function's own (under its HOME); PYTHONNOUSERSITE keeps
	// Python from loading anything from a user site directory (python runs
	// with -s too).
	env := []string{"PATH=" + instancePath, "HOME=" + home, "TMPDIR=" + filepath.Join(home, "tmp"), "LANG=C.UTF-8", "PYTHONNOUSERSITE=1"}
	if run := os.Getenv(reaper.EnvVar); run != "" {
		env = append(env, reaper.Marker(run))
	}
	return env
}

// daemonEnvNames are what the daemon keeps of faasbench's environment: what
// it needs to find and build the runtimes (PATH, HOME, the Go and pyenv
// settings), the run's marker and its own switches. Nothing else (no
// credentials) reaches the daemon, and so nothing else can reach a function.
var daemonEnvNames = []string{"PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER", reaper.EnvVar, NoCgroupsEnv}

// daemonEnvPrefixes: Go's and pyenv's settings.
var daemonEnvPrefixes = []string{"GO", "PYENV", "FAASBENCH_", "FB_TEST_"}

// DaemonEnv filters an environment (os.Environ's form) down to what the
// daemon may see.
func DaemonEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if contains(daemonEnvNames, k) || (hasAnyPrefix(k, daemonEnvPrefixes) && !strings.HasPrefix(k, "GOOGLE")) {
			out = append(out, kv)
		}
	}
	return out
}
