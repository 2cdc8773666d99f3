package cli

import (
	"os"

	"github.com/faasbench/faasbench/internal/cgroup"
	"github.com/faasbench/faasbench/platform/local"
)

// localCheckReport is what platform check --platform local prints.
type localCheckReport struct {
	Platform string        `json:"platform"`
	Root     bool          `json:"root"`
	Cgroups  cgroup.Report `json:"cgroups"`
	// Isolation: whether functions run as users of their own.
	Isolation string `json:"isolation"`
}

// localCheck says which cgroup mode the host gives the local platform and
// what works in it (a probe group is made and removed), and whether
// functions get users of their own. It never fails: every mode runs, some
// without limits (a spec that asks for one is then refused).
func (a *app) localCheck() error {
	r := localCheckReport{Platform: local.Name, Root: os.Geteuid() == 0, Cgroups: cgroup.Probe(),
		Isolation: "functions run as uids of their own (" + local.DefaultInstanceUser + " by default)"}
	if !r.Root {
		r.Isolation = local.ErrNotIsolated.Error()
	}
	text := "platform local\n" + r.Cgroups.String() + "isolation: " + r.Isolation + "\n"
	return a.emit(r, text)
}
