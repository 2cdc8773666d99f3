package local

import (
	"fmt"
	"os"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

// RoleEnv selects what this executable does when it starts: a process of
// the local platform re-executes its own binary with RoleEnv set to run a
// helper role instead of the CLI.
const (
	RoleEnv      = "FB_LOCAL_ROLE"
	RoleWatchdog = "watchdog"
)

// RunRole runs the role RoleEnv names, if any; main calls it first. It
// returns false when no role is set (the caller goes on as usual).
func RunRole() (bool, int) {
	role := os.Getenv(RoleEnv)
	if role == "" {
		return false, 0
	}
	run, ok := map[string]func([]string) error{RoleWatchdog: Watchdog}[role]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s=%q: unknown role\n", RoleEnv, role)
		return true, 2
	}
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if err := run(args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", role, err)
		return true, 1
	}
	return true, 0
}

// Watchdog is fork mode (fbrt.Watchdog), without the role variable.
func Watchdog(argv []string) error { return fbrt.Watchdog(argv, RoleEnv) }
