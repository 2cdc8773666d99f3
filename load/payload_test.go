package load

import (
	"bytes"
	"testing"
)

func TestPayloadIsSeededAndSized(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 1 << 20} {
		a, b := Payload(n, 3), Payload(n, 3)
		if len(a) != n || !bytes.Equal(a, b) {
			t.Fatalf("size %d: len %d, equal %v", n, len(a), bytes.Equal(a, b))
		}
	}
	if bytes.Equal(Payload(64, 1), Payload(64, 2)) {
		t.Fatal("different seeds, same bytes")
	}
	// Not degenerate: all byte values show up in 1 MiB.
	seen := map[byte]bool{}
	for _, c := range Payload(1<<20, 9) {
		seen[c] = true
	}
	if len(seen) != 256 {
		t.Fatalf("%d distinct byte values", len(seen))
	}
}
