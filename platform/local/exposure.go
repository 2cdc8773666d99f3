package local

import (
	"fmt"
	"net"
	"path/filepath"
	"syscall"
)

// exposure says, for the gateway's listen address, who else can reach the
// invocation path: nothing for loopback or for an address inside a network
// namespace faasbench's own scripts created (/run/netns/faasbench-*), a
// warning for anything else.
func exposure(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || tcp.IP.IsLoopback() {
		return ""
	}
	if ns := ownNetns(); ns != "" {
		return ""
	}
	return fmt.Sprintf("the gateway listens on %s, which is not loopback: anyone who can reach that address can invoke the functions "+
		"(the control API stays on the owner's Unix socket); listen on 127.0.0.1 unless that is what you want", tcp)
}

// ownNetns returns the name of the faasbench network namespace this process
// is in, or "" when it is in another one (the host's, say).
func ownNetns() string {
	var self syscall.Stat_t
	if syscall.Stat("/proc/self/ns/net", &self) != nil {
		return ""
	}
	m, _ := filepath.Glob("/run/netns/faasbench-*")
	for _, p := range m {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && st.Ino == self.Ino && st.Dev == self.Dev {
			return filepath.Base(p)
		}
	}
	return ""
}
