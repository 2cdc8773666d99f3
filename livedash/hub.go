package livedash

import (
	"encoding/json"
	"fmt"
	"sync"
)

// maxFrames is how many frames a browser that connects late is given
// (the last ten minutes at one a second); maxClients bounds the browsers
// served at once; clientBuffer is how many events a browser may fall
// behind before it is dropped (it reconnects and is given the history).
const (
	maxFrames    = 600
	maxClients   = 32
	clientBuffer = 256
)

// hub keeps the run's events and hands each to every connected browser:
// a browser that connects is given the history first (the cells kept, the
// last frames, the end if it came), then what follows. Sending never
// waits for a browser: one too slow to take its events is dropped.
type hub struct {
	mu      sync.Mutex
	cells   [][]byte
	frames  [][]byte
	final   []byte
	clients map[chan []byte]struct{}
	closed  bool
}

func newHub() *hub { return &hub{clients: map[chan []byte]struct{}{}} }

// event is one server-sent event of type kind with v as its JSON data.
func event(kind string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("dashboard event %s: %w", kind, err)
	}
	return []byte("event: " + kind + "\ndata: " + string(b) + "\n\n"), nil
}

// publish keeps ev (of kind frame, cell or done) and sends it to every browser.
func (h *hub) publish(kind string, ev []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	switch kind {
	case "frame":
		if len(h.frames) == maxFrames {
			h.frames = append(h.frames[:0], h.frames[1:]...)
		}
		h.frames = append(h.frames, ev)
	case "cell":
		h.cells = append(h.cells, ev)
	case "done":
		h.final = ev
	}
	for c := range h.clients {
		select {
		case c <- ev:
		default: // too slow: dropped; its stream ends when the channel closes
			delete(h.clients, c)
			close(c)
		}
	}
}

// join is a new browser's channel, with the history to send it first; nil
// when the hub is closed or full.
func (h *hub) join() (chan []byte, [][]byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.clients) >= maxClients {
		return nil, nil
	}
	history := make([][]byte, 0, len(h.cells)+len(h.frames)+1)
	history = append(append(history, h.cells...), h.frames...)
	if h.final != nil {
		history = append(history, h.final)
	}
	c := make(chan []byte, clientBuffer)
	h.clients[c] = struct{}{}
	return c, history
}

// leave forgets a browser that went away.
func (h *hub) leave(c chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.clients[c]; ok {
		delete(h.clients, c)
		close(c)
	}
}

// close ends every stream once it has sent what it holds.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		delete(h.clients, c)
		close(c)
	}
}
