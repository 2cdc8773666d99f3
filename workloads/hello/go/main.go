// Command hello answers 4 bytes and does no work (seed 002's ping, seed
// 003's hello-world).
package main

import (
	"net/http"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

func main() {
	fbrt.Main(func(*http.Request, []byte) (fbrt.Response, error) {
		return fbrt.Response{Body: []byte("pong")}, nil
	})
}
