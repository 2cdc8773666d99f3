// Command pause is the real node's pod sandbox process (containerd's sandbox_image): it holds the
// pod's namespaces, reaps the children that are re-parented to it, and exits on SIGINT or SIGTERM.
// faasbench's own, so that the node needs no registry (deploy/node/pause.Dockerfile).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
