// Command prime answers, by trial division, the n-th prime (kind=nth, seed
// 004), or the largest prime <= n found as seed 002 did, testing every
// number from 2 to n in turn (kind=scan: the cost grows with n), or by
// searching down from n (kind=largest: the first prime found ends it).
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

// handle is the workload (fbrt.Handler): served by main, or called by
// Nuclio's Go runtime when built as a plugin (fbnuclio).
func handle(r *http.Request, _ []byte) (fbrt.Response, error) {
	q := r.URL.Query()
	n := 100
	if v := q.Get("n"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > maxN {
			return fbrt.Response{}, fmt.Errorf("n=%q: want 1..%d", v, maxN)
		}
	}
	kind := q.Get("kind")
	switch kind {
	case "", "nth", "largest":
	case "scan":
		largest := 0
		for k := 2; k <= n; k++ {
			if isPrime(k) {
				largest = k
			}
		}
		return fbrt.Response{Body: []byte(strconv.Itoa(largest))}, nil
	default:
		return fbrt.Response{}, fmt.Errorf("kind=%q: want nth, largest or scan", kind)
	}
	if kind == "largest" {
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
}

func main() { fbrt.Main(handle) }
