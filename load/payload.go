package load

import "math/rand/v2"

// Payload returns n bytes drawn from a generator seeded by seed: the same
// seed and size always give the same bytes, so a run can be reproduced and
// responses can be validated.
func Payload(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}
