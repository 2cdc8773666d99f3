package local

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCapLogKeepsHeadAndTailAndSaysWhatItCut(t *testing.T) {
	for _, size := range []int{0, 10, 100, 101, 130, 1000} {
		out := make([]byte, size)
		for i := range out {
			out[i] = byte('a' + i%26)
		}
		path := filepath.Join(t.TempDir(), "log")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		c := &capLog{f: f, done: make(chan struct{}), headMax: 100, keep: 20}
		go c.copy(r)
		for rest := out; len(rest) > 0; { // in uneven pieces
			k := min(len(rest), 7)
			if _, err := w.Write(rest[:k]); err != nil {
				t.Fatal(err)
			}
			rest = rest[k:]
		}
		w.Close()
		c.wait(5 * time.Second)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := out
		if size > 120 {
			cut := fmt.Sprintf("\n[faasbench: %d bytes of this instance's output cut here; the log keeps its first 100 and its last 20 bytes]\n", size-120)
			want = append(append(append([]byte{}, out[:100]...), cut...), out[size-20:]...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d bytes of output: the log is\n%q\nwant\n%q", size, got, want)
		}
	}
}

// End to end: an instance that prints without end leaves a log of at most
// its head and tail, and says what was cut.
func TestInstanceLogsAreBounded(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "i.log")
	in, err := startInstance(t.Context(), instanceSpec{id: "noisy", logPath: logPath, home: dir,
		argv: []string{"/bin/sh", "-c", `head -c 5000000 /dev/zero | tr '\0' x; echo; echo the-end; exit 3`}})
	if err == nil {
		in.kill()
		t.Fatal("an instance that never signalled a port started")
	}
	st, serr := os.Stat(logPath)
	if serr != nil || st.Size() > logHead+logKeep+200 {
		t.Fatalf("log of %v bytes (%v), want at most the head and the tail", st.Size(), serr)
	}
	b, _ := os.ReadFile(logPath)
	if !strings.Contains(string(b), "bytes of this instance's output cut here") || !strings.HasSuffix(string(b), "the-end\n") {
		t.Errorf("the log does not say what it cut or lost its tail: ...%q", b[max(0, len(b)-300):])
	}
	if !strings.Contains(err.Error(), "the-end") {
		t.Errorf("the error quotes %q, want the output's tail", err)
	}
}
