package cli

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// AgentDockerfile is the agent image: the static faasbench binary on a
// distroless base, run as its non-root user (what `faasbench image agent`
// builds, and what a user with Docker builds from a static binary).
const AgentDockerfile = `FROM gcr.io/distroless/static-debian12:nonroot
COPY faasbench /faasbench
USER 65532
ENTRYPOINT ["/faasbench"]
`

// agentImageCmd is `faasbench image agent`: the image the Kubernetes load
// generators run (load.generators.where: kubernetes).
func (a *app) agentImageCmd() *cobra.Command {
	var f imageFlags
	var binary string
	cmd := &cobra.Command{
		Use:   "agent -O OUT.tar",
		Short: "Build the load-generator agent image (this faasbench binary, which must be static) into an OCI archive",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if binary == "" {
				exe, err := os.Executable()
				if err != nil {
					return err
				}
				binary = exe
			}
			if err := staticELF(binary); err != nil {
				return usageErr("--binary: %v", err)
			}
			dir, err := os.MkdirTemp("", "faasbench-agent-image-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			b, err := os.ReadFile(binary)
			if err != nil {
				return usageErr("--binary: %v", err)
			}
			if err := os.WriteFile(filepath.Join(dir, "faasbench"), b, 0o755); err != nil {
				return err
			}
			df := filepath.Join(dir, "Dockerfile")
			if err := os.WriteFile(df, []byte(AgentDockerfile), 0o644); err != nil {
				return err
			}
			if f.tag == "" {
				f.tag = "faasbench/agent:" + imageTagOf(version)
			}
			return a.buildImage(cmd, f, df, dir)
		},
	}
	f.add(cmd, "the image's name (default faasbench/agent:<version>)")
	cmd.Flags().StringVar(&binary, "binary", "", "the faasbench binary to put in the image (default: this one); build it with CGO_ENABLED=0")
	return cmd
}

// staticELF checks that path is an ELF program with no interpreter (it runs
// on a distroless static base).
func staticELF(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked: build it with CGO_ENABLED=0 (make build does)", path)
		}
	}
	return nil
}

// imageTagOf makes a version usable as an image tag.
func imageTagOf(v string) string {
	out := []byte{}
	for _, c := range []byte(v) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			out = append(out, c)
		default:
			out = append(out, '-')
		}
	}
	if len(out) == 0 {
		return "dev"
	}
	return string(out[:min(len(out), 128)])
}
