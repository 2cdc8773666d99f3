package nuclio

import (
	"os/exec"
	"testing"
)

// A query reaches a function of the shell runtime as one word of the command line Nuclio runs with
// sh -c (the header's value appended to the command): the shell gives the program the query as it
// was, whatever it holds (&, ;, $(...), quotes, spaces).
func TestShellQuoteIsOneWordForSh(t *testing.T) {
	for _, q := range []string{"variant=np", "variant=np&n=2", "a=1;b=2", "x=$(id)&y=`id`", "q='it'\"s\"", "a b  c", ""} {
		out, err := exec.Command("sh", "-c", "printf '%s|' "+ShellQuote(q)).Output()
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if string(out) != q+"|" {
			t.Errorf("%q: sh gave the program %q: want one argument, the query as it was", q, out)
		}
	}
}

// Only a function of the shell runtime gets its query in X-Nuclio-Arguments; the other runtimes get the
// URL's query themselves, and a request without one gets no header.
func TestQueryHeaderForTheShellRuntimeOnly(t *testing.T) {
	var p Platform
	p.deployed.Put("image-cpp", Settings{Runtime: "shell"})
	p.deployed.Put("hello-python", Settings{Runtime: "python:3.11"})
	if h, v := p.QueryHeader("image-cpp", "variant=np&n=2"); h != "X-Nuclio-Arguments" || v != "'variant=np&n=2'" {
		t.Errorf("shell: %q %q", h, v)
	}
	if h, v := p.QueryHeader("image-cpp", ""); h != "" || v != "" {
		t.Errorf("shell, no query: %q %q", h, v)
	}
	if h, _ := p.QueryHeader("hello-python", "n=1"); h != "" {
		t.Errorf("python: %q", h)
	}
	if h, _ := p.QueryHeader("unknown", "n=1"); h != "" {
		t.Errorf("a function not deployed: %q", h)
	}
}
