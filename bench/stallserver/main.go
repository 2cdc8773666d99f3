// Command stallserver answers "pong", except that it stalls once a second:
// a request arriving in the first half of a second is held until the middle
// of that second (as if the server paused for 500 ms every second). Half
// the requests of a steady load then wait 0..500 ms, uniformly, so the true
// p90 is ~400 ms: what a load tool that corrects for coordinated omission
// reports, and what one that does not hides.
package main

import (
	"flag"
	"log"
	"net/http"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address")
	stall := flag.Duration("stall", 500*time.Millisecond, "how long the server stalls at the start of every second")
	flag.Parse()
	start := time.Now()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		since := time.Since(start)
		into := since % time.Second
		if into < *stall {
			time.Sleep(*stall - into)
		}
		w.Write([]byte("pong"))
	})
	log.Fatal(http.ListenAndServe(*addr, h))
}
