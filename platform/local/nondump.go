package local

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Instances are non-dumpable (issue 43): their /proc/PID files belong to
// root, so another instance of the same function (the same uid) cannot read
// their environment, descriptors or memory, nor trace them, and they leave no
// core dump. A process cannot be made so from outside, and execve makes it
// dumpable again, except when the file it executes is not readable by it
// (the kernel's would_dump: it then takes fs.suid_dumpable, 0 by default).
// So the last program an instance executes is one it may run but not read:
//
//   - a binary the stage built (Go, C++): made execute-only (0711, root's);
//   - an interpreter (Python, Node.js, Java): started through an
//     execute-only copy of its own ELF loader (PT_INTERP), as
//     `ld.so /usr/bin/python3 ...`; the interpreter sees its usual argv[0]
//     and finds its libraries as always.
//
// Only where instances run as users of their own: a file's owner may read it
// whatever its mode, so an unisolated platform's instances stay dumpable.
type nondump struct {
	stage *stage
}

// wrap returns argv so that the instance it starts is non-dumpable.
// built says argv[0] is a binary the stage built.
func (n nondump) wrap(argv []string, built bool) ([]string, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("no command")
	}
	if built {
		if err := os.Chmod(argv[0], 0o711); err != nil {
			return nil, fmt.Errorf("make %s execute-only: %w", argv[0], err)
		}
		return argv, nil
	}
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", argv[0], err)
	}
	if prog, err = filepath.EvalSymlinks(prog); err != nil {
		return nil, fmt.Errorf("resolve %s: %w", argv[0], err)
	}
	loader, err := n.loader(prog)
	if err != nil {
		return nil, err
	}
	return append([]string{loader, prog}, argv[1:]...), nil
}

// loader returns the stage's execute-only copy of prog's ELF interpreter.
func (n nondump) loader(prog string) (string, error) {
	f, err := elf.Open(prog)
	if err != nil {
		return "", fmt.Errorf("read %s's ELF header: %w", prog, err)
	}
	defer f.Close()
	var interp string
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b, err := io.ReadAll(p.Open())
		if err != nil {
			return "", fmt.Errorf("read %s's PT_INTERP: %w", prog, err)
		}
		interp = strings.TrimRight(string(b), "\x00")
	}
	if interp == "" {
		return "", fmt.Errorf("%s is statically linked: it cannot be started through its loader", prog)
	}
	return n.stage.copyExecutable(interp, "loader-"+filepath.Base(interp))
}
