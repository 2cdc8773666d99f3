package distrib

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/faasbench/faasbench/load"
)

// Protocol is the version of the messages: coordinator and agent must agree.
const Protocol = 1

// Size limits of one message, stated so that neither side can be made to
// hold more: a job carries its share of a batch's items or of a trace; a
// report, histograms and windows (a few MB for an hour-long load).
const (
	MaxControl = 1 << 20   // hello, ping, pong, error: 1 MiB
	MaxJob     = 256 << 20 // a job: 256 MiB
	MaxReport  = 64 << 20  // a report: 64 MiB
)

// Msg is one message; Type says which field is set.
type Msg struct {
	Type   string  `json:"type"` // hello, ping, pong, job, live, report, records, error, bye
	Hello  *Hello  `json:"hello,omitempty"`
	Ping   *Ping   `json:"ping,omitempty"`
	Job    *Job    `json:"job,omitempty"`
	Report *Report `json:"report,omitempty"`
	// Records is a piece of a generator's per-request records file, sent
	// after its report when the load keeps records.
	Records *RecordsChunk `json:"records,omitempty"`
	// Live is an agent's counts so far while its job runs (a "live"
	// message, when the job asks: Job.LiveEveryNs).
	Live  *load.LiveView `json:"live,omitempty"`
	Error string         `json:"error,omitempty"`
}

// RecordsChunk is up to RecordsChunkBytes of a records file; Done ends it.
type RecordsChunk struct {
	Data []byte `json:"data,omitempty"`
	Done bool   `json:"done,omitempty"`
}

// RecordsChunkBytes is the size of a records chunk (a control message).
const RecordsChunkBytes = 512 << 10

// MaxRecordsBytes bounds the records file one generator sends for one load
// (about 30 million requests): past it the agent sends none and says so.
const MaxRecordsBytes = 1 << 30

// Hello opens a session: from the coordinator with the token, from the agent
// with what it is.
type Hello struct {
	Protocol int    `json:"protocol"`
	Token    string `json:"token,omitempty"`
	Index    int    `json:"index"`
	Host     string `json:"host,omitempty"`
	Pid      int    `json:"pid,omitempty"`
	Cores    int    `json:"cores,omitempty"`
	CPUs     string `json:"cpus,omitempty"`
}

// Ping asks the agent's clock; the pong echoes Seq with the agent's
// CLOCK_REALTIME in ns when it answered.
type Ping struct {
	Seq    int   `json:"seq"`
	RealNs int64 `json:"real_ns,omitempty"`
}

func limitFor(typ string) int {
	switch typ {
	case "job":
		return MaxJob
	case "report":
		return MaxReport
	}
	return MaxControl
}

// writeMsg writes m as a 4-byte big-endian length and its JSON.
func writeMsg(w io.Writer, m *Msg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode %s: %w", m.Type, err)
	}
	if len(b) > limitFor(m.Type) {
		return fmt.Errorf("%s of %d bytes: more than the %d a %s may have", m.Type, len(b), limitFor(m.Type), m.Type)
	}
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(b)))
	if _, err := w.Write(hdr[:]); err != nil {
		return fmt.Errorf("send %s: %w", m.Type, err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("send %s: %w", m.Type, err)
	}
	return nil
}

// readMsg reads one message of at most limit bytes; want, when set, is
// the only type accepted (an error message is returned as an error).
func readMsg(r io.Reader, limit int, want string) (*Msg, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("receive: %w", err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if int64(n) > int64(limit) {
		return nil, fmt.Errorf("receive: a message of %d bytes, more than the %d allowed here", n, limit)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("receive %d bytes: %w", n, err)
	}
	var m Msg
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("receive: not a message: %w", err)
	}
	if m.Type == "error" {
		return nil, &RemoteError{Msg: m.Error}
	}
	if want != "" && m.Type != want {
		return nil, fmt.Errorf("receive: a %q message, want %q", m.Type, want)
	}
	if n > uint32(limitFor(m.Type)) {
		return nil, fmt.Errorf("receive: a %s of %d bytes, more than the %d allowed", m.Type, n, limitFor(m.Type))
	}
	return &m, nil
}

// RemoteError is what the other side said went wrong.
type RemoteError struct{ Msg string }

func (e *RemoteError) Error() string { return "generator: " + e.Msg }
