// Command prime answers the n-th prime (seed 004) or the largest prime <= n
// (seed 002, ?kind=largest), by trial division.
package main

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

const maxN = 10_000_000

func isPrime(k int) bool {
	if k < 2 {
		return false
	}
	for d := 2; d*d <= k; d++ {
		if k%d == 0 {
			return false
		}
	}
	return true
}

func main() {
	fbrt.Main(func(r *http.Request, _ []byte) (fbrt.Response, error) {
		q := r.URL.Query()
		n := 100
		if v := q.Get("n"); v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n < 1 || n > maxN {
				return fbrt.Response{}, fmt.Errorf("n=%q: want 1..%d", v, maxN)
			}
		}
		if q.Get("kind") == "largest" {
			k := n
			for k >= 2 && !isPrime(k) {
				k--
			}
			if k < 2 {
				k = 0
			}
			return fbrt.Response{Body: []byte(strconv.Itoa(k))}, nil
		}
		count, k := 0, 1
		for count < n {
			k++
			if isPrime(k) {
				count++
			}
		}
		return fbrt.Response{Body: []byte(strconv.Itoa(k))}, nil
	})
}
