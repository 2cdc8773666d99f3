package results

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets the test binary hold a run directory's lock as another
// process would (FB_TEST_HOLD_LOCK=dir): it locks, says so, and waits.
func TestMain(m *testing.M) {
	if dir := os.Getenv("FB_TEST_HOLD_LOCK"); dir != "" {
		d := &Dir{Path: dir}
		if _, err := d.Lock(); err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		buf := make([]byte, 1)
		_, _ = os.Stdin.Read(buf)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLockRefusesASecondWriterAndFreesOnExit(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "FB_TEST_HOLD_LOCK="+d.Path)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("holder: %q %v", buf, err)
	}
	_, err := d.Lock()
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Fatalf("second writer: %v", err)
	}
	// The holder is killed: the kernel releases its lock.
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	stdin.Close()
	unlock, err := d.Lock()
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	unlock()
}
