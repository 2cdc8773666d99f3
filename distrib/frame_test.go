package distrib

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFramesRoundTripAndStateTheirLimits(t *testing.T) {
	var buf bytes.Buffer
	if err := writeMsg(&buf, &Msg{Type: "ping", Ping: &Ping{Seq: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := writeMsg(&buf, &Msg{Type: "error", Error: "no such target"}); err != nil {
		t.Fatal(err)
	}
	m, err := readMsg(&buf, MaxControl, "ping")
	if err != nil || m.Ping == nil || m.Ping.Seq != 3 {
		t.Fatalf("read %+v, %v", m, err)
	}
	var re *RemoteError
	if _, err := readMsg(&buf, MaxControl, ""); !errors.As(err, &re) || re.Msg != "no such target" {
		t.Errorf("an error message read as %v", err)
	}
	if _, err := readMsg(&buf, MaxControl, ""); !errors.Is(err, io.EOF) {
		t.Errorf("the stream's end read as %v", err)
	}

	// A length over the reader's limit is refused before anything is read.
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], MaxControl+1)
	if _, err := readMsg(bytes.NewReader(hdr[:]), MaxControl, ""); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("an oversized message: %v", err)
	}
	// A control message may not be as large as a job is allowed to be.
	big := &Msg{Type: "pong", Error: strings.Repeat("x", MaxControl)}
	if err := writeMsg(io.Discard, big); err == nil {
		t.Error("an oversized pong was sent")
	}
	buf.Reset()
	b := []byte(`{"type":"pong","error":"` + strings.Repeat("x", MaxControl) + `"}`)
	binary.BigEndian.PutUint32(hdr[:], uint32(len(b)))
	buf.Write(hdr[:])
	buf.Write(b)
	if _, err := readMsg(&buf, MaxJob, ""); err == nil {
		t.Error("a pong larger than a control message was accepted where a job could be")
	}
	// The wrong type, and garbage.
	buf.Reset()
	_ = writeMsg(&buf, &Msg{Type: "bye"})
	if _, err := readMsg(&buf, MaxControl, "hello"); err == nil {
		t.Error("a bye read as a hello")
	}
	buf.Reset()
	binary.BigEndian.PutUint32(hdr[:], 3)
	buf.Write(hdr[:])
	buf.WriteString("{x}")
	if _, err := readMsg(&buf, MaxControl, ""); err == nil {
		t.Error("garbage read as a message")
	}
}
