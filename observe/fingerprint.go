// Package observe records what was measured on: the environment fingerprint
// (and, with later capabilities, replica and resource timelines).
package observe

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Fingerprint describes the machine and tools a run used.
type Fingerprint struct {
	Hostname      string `json:"hostname"`
	OS            string `json:"os"`
	Kernel        string `json:"kernel"`
	Arch          string `json:"arch"`
	CPUModel      string `json:"cpu_model"`
	Cores         int    `json:"cores"`
	MemoryBytes   int64  `json:"memory_bytes"`
	CgroupVersion string `json:"cgroup_version"`
	GoVersion     string `json:"go_version"`
	PythonVersion string `json:"python_version"`
	NodeVersion   string `json:"node_version"`
	Tool          Tool   `json:"faasbench"`
}

// Tool identifies this build of faasbench.
type Tool struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// Take reads the fingerprint. Facts that cannot be read are left empty.
func Take(ctx context.Context, tool Tool) Fingerprint {
	f := Fingerprint{Arch: runtime.GOARCH, Cores: runtime.NumCPU(), GoVersion: runtime.Version(), Tool: tool}
	f.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		f.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	f.OS = osRelease()
	f.CPUModel = procField("/proc/cpuinfo", "model name")
	if mem := procField("/proc/meminfo", "MemTotal"); mem != "" {
		if kb, err := strconv.ParseInt(strings.Fields(mem)[0], 10, 64); err == nil {
			f.MemoryBytes = kb * 1024
		}
	}
	f.CgroupVersion = "v1"
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		f.CgroupVersion = "v2"
	}
	f.PythonVersion = version(ctx, "python3", "--version")
	f.NodeVersion = version(ctx, "node", "--version")
	return f
}

func osRelease() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return runtime.GOOS
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}

func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func version(ctx context.Context, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
