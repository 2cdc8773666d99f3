package results

import (
	"os"
	"testing"
)

// The reserve is a file of the size asked, allocated, until it is released.
func TestReserveHoldsItsSpaceUntilReleased(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	release, err := d.Reserve(1 << 20)
	if err != nil {
		t.Fatalf("reserve (fallocate on the test's temporary directory): %v", err)
	}
	fi, err := os.Stat(d.File(".space-reserve"))
	if err != nil || fi.Size() != 1<<20 {
		t.Fatalf("the reserve: %v, %v", fi, err)
	}
	release()
	if _, err := os.Stat(d.File(".space-reserve")); !os.IsNotExist(err) {
		t.Errorf("released, the reserve is still there: %v", err)
	}
	if _, err := (&Dir{Path: d.File("missing")}).Reserve(1); err == nil {
		t.Error("a reserve in a directory that does not exist")
	}
}
