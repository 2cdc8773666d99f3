package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/internal/cgroup"
)

func TestPlatformCheckLocalSaysTheCgroupMode(t *testing.T) {
	code, out, errOut := runCLI(t, "platform", "check", "--platform", "local")
	mode := "cgroups: v1 ("
	if cgroup.Unified() {
		mode = "cgroups: v2, as root ("
	}
	if code != 0 || !strings.Contains(out, mode) || !strings.Contains(out, "works: memory limits (memory_mb)") || !strings.Contains(out, "isolation: functions run as uids of their own") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "platform", "check", "--platform", "local", "-o", "json")
	var r localCheckReport
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil || r.Cgroups.Mode == "" || r.Cgroups.Mode == "none" || !r.Root {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
}
