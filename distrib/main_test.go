package distrib

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// TestMain lets this test binary be an agent: Local starts it as
// `<exe> agent --index N ...`, which go test never passes.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "canned-server" {
		cannedServe()
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		if err := RunAgent(context.Background(), os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
