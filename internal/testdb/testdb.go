// Package testdb starts a MariaDB server of a test's own through
// scripts/mariadb.sh (Debian's mariadb-server, a data directory in the
// test's temporary directory, a free loopback port) and stops it when the
// test ends.
package testdb

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Start starts the server and returns its FB_DB_* settings (password included).
func Start(tb testing.TB) map[string]string {
	tb.Helper()
	script, err := findScript()
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := filepath.Join(tb.TempDir(), "mariadb")
	var stderr bytes.Buffer
	cmd := exec.Command(script, "start", dir, strconv.Itoa(port))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// Stop even after a failed start: the server may be up.
	tb.Cleanup(func() {
		if out, err := exec.Command(script, "stop", dir).CombinedOutput(); err != nil {
			tb.Errorf("mariadb.sh stop: %v\n%s", err, out)
		}
	})
	if err != nil {
		tb.Fatalf("mariadb.sh start: %v\n%s", err, stderr.String())
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	if env["FB_DB_PASSWORD"] == "" || env["FB_DB_PORT"] != strconv.Itoa(port) {
		tb.Fatalf("mariadb.sh start printed %q", out)
	}
	return env
}

func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "scripts", "mariadb.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
