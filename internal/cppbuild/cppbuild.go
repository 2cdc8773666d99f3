// Package cppbuild compiles a workload's C++ program as seed 000 built its functions: g++ -O2,
// C++17, with Magick++'s flags when the source includes it. The local platform builds the
// functions with it, the batch kind the native baselines.
package cppbuild

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Build compiles src into the executable out; extra are more g++ flags
// (e.g. -fopenmp).
func Build(ctx context.Context, src, out string, extra ...string) error {
	args := append([]string{"-O2", "-std=c++17"}, extra...)
	args = append(args, "-o", out, src)
	if b, err := os.ReadFile(src); err == nil && strings.Contains(string(b), "<Magick++.h>") {
		cfg, err := MagickConfig()
		if err != nil {
			return fmt.Errorf("%s needs Magick++ (Debian: libmagick++-dev): %w", src, err)
		}
		flags, err := exec.CommandContext(ctx, cfg, "--cppflags", "--cxxflags", "--ldflags", "--libs").Output()
		if err != nil {
			return fmt.Errorf("%s needs Magick++ (Debian: libmagick++-dev): %w", src, err)
		}
		args = append(args, strings.Fields(string(flags))...)
	}
	if out, err := exec.CommandContext(ctx, "g++", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("g++ %s: %w\n%s", src, err, out)
	}
	return nil
}

// MagickConfig finds Magick++-config: on the PATH, or where Debian's
// libmagick++-dev puts it (not on the PATH: under the ImageMagick
// library's directory).
func MagickConfig() (string, error) {
	if p, err := exec.LookPath("Magick++-config"); err == nil {
		return p, nil
	}
	m, _ := filepath.Glob("/usr/lib/*/ImageMagick-*/bin-q16/Magick++-config")
	if len(m) == 0 {
		return "", errors.New("no Magick++-config on the PATH or under /usr/lib/*/ImageMagick-*/bin-q16")
	}
	sort.Strings(m)
	return m[len(m)-1], nil
}
