package dataset

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/faasbench/faasbench/load"
)

// MaxPayloadSize bounds one payload file (seed 000 went to 16 MiB).
const MaxPayloadSize = 256 << 20

// PayloadName is the file name of the payload of size bytes.
func PayloadName(size int) string { return fmt.Sprintf("payload-%d.bin", size) }

// Payloads writes one file of seeded random bytes per size (the same bytes
// the load engine sends for that seed and size) and returns their paths.
func Payloads(dir string, seed uint64, sizes []int) ([]string, error) {
	if len(sizes) == 0 {
		return nil, fmt.Errorf("dataset: payloads: no sizes")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	paths := make([]string, 0, len(sizes))
	for _, n := range sizes {
		if n < 0 || n > MaxPayloadSize {
			return paths, fmt.Errorf("dataset: payloads: size %d: want 0..%d", n, MaxPayloadSize)
		}
		path := filepath.Join(dir, PayloadName(n))
		if err := os.WriteFile(path, load.Payload(n, seed), 0o644); err != nil {
			return paths, fmt.Errorf("dataset: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
