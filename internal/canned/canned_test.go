package canned

import (
	"bufio"
	"net"
	"net/http"
	"testing"
)

func TestServeAnswersEveryRequestOnAConnection(t *testing.T) {
	srv, cli := net.Pipe()
	go func() { Serve(srv, []byte("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\npong")); srv.Close() }()
	defer cli.Close()
	r := bufio.NewReader(cli)
	for i := range 3 {
		go cli.Write([]byte("GET /f HTTP/1.1\r\nHost: x\r\n\r\n"))
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b := make([]byte, 4)
		if _, err := resp.Body.Read(b); string(b) != "pong" && err != nil {
			t.Fatalf("request %d: body %q, %v", i, b, err)
		}
		resp.Body.Close()
	}
}
