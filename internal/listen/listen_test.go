package listen

import (
	"net"
	"strings"
	"testing"
)

func TestAddressPutsAPortAloneOnLoopbackAndNamesTheFlag(t *testing.T) {
	for in, want := range map[string]string{"": "127.0.0.1:9", "9465": "127.0.0.1:9465", ":9465": "127.0.0.1:9465", "0.0.0.0:80": "0.0.0.0:80", "[::1]:7": "[::1]:7"} {
		if got, err := Address("--x-listen", in, "127.0.0.1:9"); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"no-such-port-name", "70000", "a:b:c"} {
		if _, err := Address("--x-listen", bad, "127.0.0.1:9"); err == nil || !strings.Contains(err.Error(), "--x-listen") {
			t.Errorf("%q: %v, want an error naming the flag", bad, err)
		}
	}
}

func TestOnSaysWhenTheAddressIsTakenAndWhetherItIsExposed(t *testing.T) {
	ln, err := On("--x-listen", "127.0.0.1:0", "127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if Exposed(ln) || Exposed(nil) {
		t.Error("loopback said to be exposed")
	}
	if _, err := On("--x-listen", ln.Addr().String(), "127.0.0.1:9"); err == nil || !strings.Contains(err.Error(), "--x-listen "+ln.Addr().String()) {
		t.Errorf("taken: %v", err)
	}
	if Exposed(fakeListener{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 1)}}) != true {
		t.Error("an address off loopback not said to be exposed")
	}
}

// fakeListener only has an address (no socket is opened off loopback in a test).
type fakeListener struct{ a net.Addr }

func (f fakeListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (f fakeListener) Close() error              { return nil }
func (f fakeListener) Addr() net.Addr            { return f.a }
