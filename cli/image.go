package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/imagebuild"
	"github.com/faasbench/faasbench/internal/fileutil"
)

// defaultImageCache is where base root file systems are kept between builds (outside any clone).
func defaultImageCache() string {
	if c := os.Getenv("FAASBENCH_CACHE"); c != "" {
		return filepath.Join(c, "images")
	}
	return "/var/cache/faasbench/images"
}

type imageFlags struct {
	tag, out, cache string
	bases           []string
}

func (f *imageFlags) add(cmd *cobra.Command, tagHelp string) {
	fl := cmd.Flags()
	fl.StringVarP(&f.tag, "tag", "t", "", tagHelp)
	fl.StringVarP(&f.out, "output-file", "O", "", "the OCI image archive to write (ctr images import reads it)")
	fl.StringVar(&f.cache, "cache", defaultImageCache(), "where base root file systems are kept between builds ($FAASBENCH_CACHE/images)")
	fl.StringArrayVar(&f.bases, "base", nil, "REF=DIR: the FROM reference REF stands for the directory DIR's tree (repeatable), e.g. ghcr.io/openfaas/of-watchdog:0.11.6=DIR holding /fwatchdog built from its pinned source")
}

// build builds dockerfile in contextDir and writes the archive; it prints what it made.
func (a *app) buildImage(cmd *cobra.Command, f imageFlags, dockerfile, contextDir string) error {
	if f.out == "" {
		return usageErr("--output-file: required (the OCI image archive to write)")
	}
	text, err := os.ReadFile(dockerfile)
	if err != nil {
		return usageErr("dockerfile: %v", err)
	}
	extra := map[string]imagebuild.Base{}
	for _, v := range f.bases {
		ref, base, err := imagebuild.DirBase(v)
		if err != nil {
			return usageErr("%v", err)
		}
		extra[ref] = base
	}
	if os.Geteuid() != 0 {
		return usageErr("image build: needs root (RUN steps mount an overlay and chroot)")
	}
	start := time.Now()
	b := &imagebuild.Builder{Context: contextDir, Cache: f.cache, Log: cmd.ErrOrStderr(), Extra: extra}
	im, err := b.Build(cmd.Context(), string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", dockerfile, err)
	}
	defer im.Close()
	if err := os.MkdirAll(filepath.Dir(f.out), 0o755); err != nil {
		return err
	}
	var w imagebuild.Written
	err = fileutil.WriteAtomic(f.out, func(out io.Writer) (err error) {
		w, err = imagebuild.WriteArchive(out, im, f.tag)
		return err
	})
	if err != nil {
		return fmt.Errorf("--output-file: %w", err)
	}
	var size int64
	for _, l := range w.Layers {
		size += l.Size
	}
	fmt.Fprintf(a.env.Stdout, "built %s (%s) in %.1f s: %d layer(s), %.1f MiB, FROM %s -> %s\n", w.Name, w.Manifest.Digest[:19],
		time.Since(start).Seconds(), len(w.Layers), float64(size)/(1<<20), im.From, f.out)
	if im.Base.Differs != "" {
		fmt.Fprintf(a.env.Stdout, "  base differs from %s: %s\n", im.From, im.Base.Differs)
	}
	return nil
}

func (a *app) imageCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "image", Short: "Build OCI images from Dockerfiles with no Docker engine and no registry"}
	var f imageFlags
	var contextDir string
	build := &cobra.Command{
		Use:   "build DOCKERFILE --tag T -O OUT.tar",
		Short: "Build a Dockerfile into an OCI image archive (each FROM maps to a Debian-built base: docs/images.md)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.tag == "" {
				return usageErr("--tag: required")
			}
			return a.buildImage(cmd, f, args[0], contextDir)
		},
	}
	f.add(build, "the image's name, e.g. faasbench/hello-go:local")
	build.Flags().StringVar(&contextDir, "context", ".", "the build context COPY reads from")
	bases := &cobra.Command{
		Use:   "bases",
		Short: "Print the table of FROM references the builder knows and what stands for each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprint(a.env.Stdout, imagebuild.BaseTable())
			return err
		},
	}
	cmd.AddCommand(build, bases, a.agentImageCmd())
	return cmd
}

// imageFlavors are the Dockerfiles a workload has: Dockerfile (plain) and
// Dockerfile.<flavor>.
func imageFlavors() []string {
	return []string{"plain", "openfaas", "openfaas-classic", "nuclio", "openwhisk", "fission"}
}

// workloadImageCmd is `faasbench workload image`: the workload's own Dockerfile, the one users build.
func (a *app) workloadImageCmd() *cobra.Command {
	var f imageFlags
	var lang, dir, flavor string
	cmd := &cobra.Command{
		Use:   "image WORKLOAD --lang L -O OUT.tar",
		Short: "Build a workload's image from its generated Dockerfile into an OCI archive (no Docker, no registry)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := lookupWorkload(dir, args[0], lang)
			if err != nil {
				return err
			}
			file := "Dockerfile"
			if !slices.Contains(imageFlavors(), flavor) {
				return usageErr("--flavor: %q: want one of %s", flavor, strings.Join(imageFlavors(), ", "))
			}
			if flavor != "plain" {
				file += "." + flavor
			}
			dockerfile := filepath.Join(root, args[0], lang, file)
			if _, err := os.Stat(dockerfile); err != nil {
				return usageErr("--flavor: %s has no %s", args[0]+"/"+lang, file)
			}
			if f.tag == "" {
				f.tag = "faasbench/" + args[0] + "-" + lang + ":local"
			}
			return a.buildImage(cmd, f, dockerfile, filepath.Dir(root))
		},
	}
	f.add(cmd, "the image's name (default faasbench/<workload>-<lang>:local, the baseline's name with image_tag local)")
	cmd.Flags().StringVarP(&lang, "lang", "l", "", "the language of the implementation")
	cmd.Flags().StringVar(&flavor, "flavor", "plain", "which Dockerfile: "+strings.Join(imageFlavors(), ", "))
	cmd.Flags().StringVar(&dir, "workloads", "", "workload catalogue directory")
	_ = cmd.MarkFlagRequired("lang")
	return cmd
}
