package load

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestCapBufKeepsUpToItsLimitAndCountsTheRest(t *testing.T) {
	for _, size := range []int{0, 9, 10, 11, 1000} {
		body := strings.Repeat("x", size)
		for name, fill := range map[string]func(*capBuf) (int64, error){
			"ReadFrom": func(b *capBuf) (int64, error) { return b.ReadFrom(strings.NewReader(body)) },
			"Write":    func(b *capBuf) (int64, error) { return io.Copy(writerOnly{b}, strings.NewReader(body)) },
			"CopyN":    func(b *capBuf) (int64, error) { return io.CopyN(b, strings.NewReader(body), int64(size)) },
			"pieces": func(b *capBuf) (int64, error) { // Write after Write, the room shrinking
				var n int64
				for rest := body; len(rest) > 0; {
					k, err := b.Write([]byte(rest[:min(len(rest), 3)]))
					n += int64(k)
					if err != nil {
						return n, err
					}
					rest = rest[min(len(rest), 3):]
				}
				return n, nil
			},
		} {
			b := &capBuf{limit: 10}
			b.buf.WriteString("stale")
			b.over = true
			b.reset()
			n, err := fill(b)
			if err != nil || n != int64(size) {
				t.Fatalf("%s of %d bytes: read %d, %v; want all of them", name, size, n, err)
			}
			keep := min(size, 10)
			if !bytes.Equal(b.Bytes(), []byte(body[:keep])) {
				t.Errorf("%s of %d bytes kept %d bytes, want the first %d", name, size, len(b.Bytes()), keep)
			}
			if b.over != (size > 10) {
				t.Errorf("%s of %d bytes: over = %v with a limit of 10", name, size, b.over)
			}
		}
	}
}

// writerOnly hides capBuf's ReadFrom, so io.Copy goes through Write.
type writerOnly struct{ w io.Writer }

func (w writerOnly) Write(p []byte) (int, error) { return w.w.Write(p) }

// A checked reply longer than the bound is read to its end and counted, but
// never held whole: it fails its check (issue 60: a 2 GiB reply ran the
// generator out of memory). The same reply under the bound passes.
func TestLongCheckedRepliesFailTheirCheckWithoutBeingHeld(t *testing.T) {
	const size = 48 << 20
	chunk := bytes.Repeat([]byte("ab"), 16<<10)
	srv := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/length" {
			w.Header().Set("Content-Length", strconv.Itoa(size))
		} // else no length: net/http chunks it
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	isAB := func(b []byte) error {
		if len(b) == 0 || len(b)%2 != 0 || !bytes.Equal(b[:2], []byte("ab")) {
			return fmt.Errorf("%d bytes", len(b))
		}
		return nil
	}
	for _, path := range []string{"/length", "/chunked"} {
		for _, netHTTP := range []bool{false, true} {
			for _, limit := range []int64{1 << 20, 64 << 20} {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				res := runN(t, srv.URL+path, 2, Options{Validate: isAB, NetHTTP: netHTTP, MaxCheckedBody: limit})
				runtime.ReadMemStats(&after)
				what := fmt.Sprintf("%s, net/http %v, bound %d MiB", path, netHTTP, limit>>20)
				if res.BytesIn != 2*size {
					t.Errorf("%s: %d bytes counted, want %d", what, res.BytesIn, 2*size)
				}
				if limit < size {
					if res.Counts[ClassValidation] != 2 || res.Succeeded() != 0 {
						t.Errorf("%s: counts %v, want 2 validation failures", what, res.Counts)
					}
					if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
						t.Errorf("%s: %d MiB allocated for two replies of %d MiB over a bound of 1 MiB", what, grew>>20, size>>20)
					}
				} else if res.Succeeded() != 2 {
					t.Errorf("%s: counts %v, want 2 successes", what, res.Counts)
				}
			}
		}
	}
}
