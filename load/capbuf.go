package load

import (
	"bytes"
	"io"
)

// DefaultMaxCheckedBody is how much of a reply a worker keeps to check it
// (Options.MaxCheckedBody): a reply over it fails its check as a validation
// error, counted whole in BytesIn but never held whole in memory. A 2 GiB
// reply to a checked request ran the generator out of memory before there
// was a bound (issue 60); the studies' largest checked reply is 16 MiB.
const DefaultMaxCheckedBody = 64 << 20

// capBuf keeps at most limit bytes of a reply and discards the rest, saying
// whether there was more (over): what a check reads is then never the
// whole reply, and the check must fail.
type capBuf struct {
	buf   bytes.Buffer
	limit int64
	over  bool
	lr    io.LimitedReader // reused: ReadFrom allocates nothing per reply
}

func (b *capBuf) reset() {
	b.buf.Reset()
	b.over = false
}

// Bytes is what was kept.
func (b *capBuf) Bytes() []byte { return b.buf.Bytes() }

// Write keeps what fits under the limit and counts the rest as read.
func (b *capBuf) Write(p []byte) (int, error) {
	room := b.limit - int64(b.buf.Len())
	if int64(len(p)) <= room {
		return b.buf.Write(p)
	}
	if room > 0 {
		b.buf.Write(p[:room])
	}
	b.over = true
	return len(p), nil
}

// ReadFrom reads r to its end: the first bytes up to the limit are kept,
// the rest read and discarded. It returns every byte read.
func (b *capBuf) ReadFrom(r io.Reader) (int64, error) {
	room := b.limit - int64(b.buf.Len())
	if room < 0 {
		room = 0
	}
	b.lr.R, b.lr.N = r, room
	n, err := b.buf.ReadFrom(&b.lr)
	b.lr.R = nil
	if err != nil {
		return n, err
	}
	rest, err := io.Copy(io.Discard, r)
	if rest > 0 {
		b.over = true
	}
	return n + rest, err
}
