package local

import (
	"math/rand/v2"
	"sync/atomic"
)

// Sharding is Apache OpenWhisk's load balancer (core/controller/src/main/
// scala/org/apache/openwhisk/core/loadBalancer/ShardingContainerPoolBalancer.scala):
// each function has a home instance (a hash of its name modulo the
// instances) and a step size (one of the pairwise coprime numbers up to the
// number of instances, picked by the same hash); a request goes to the first
// instance along home, home+step, ... that has a free slot by the balancer's
// own books, and when none has (overload) to a random instance, which
// queues it. Under a few heavy requests the home instances work while
// others idle: seed 004 Figs 5.10-5.11.
const Sharding = "sharding"

// The namespace the hash is computed with: OpenWhisk's default one.
const shardingNamespace = "guest"

// javaHash is Java's String.hashCode (UTF-16 code units; names here are
// ASCII, a byte each).
func javaHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(s[i])
	}
	return h
}

// shardingHash is generateHash(namespace, action): the absolute value of
// the namespace's hash XOR the fully qualified name's. (Scala's Int.abs of
// MinValue stays negative; the modulo below is taken on a non-negative
// value either way.)
func shardingHash(function string) int {
	h := javaHash(shardingNamespace) ^ javaHash(shardingNamespace+"/"+function)
	if h < 0 {
		h = -h
	}
	if h < 0 { // math.MinInt32
		h = 0
	}
	return int(h)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// pairwiseCoprimesUntil is pairwiseCoprimeNumbersUntil(x): the numbers
// 1..x coprime with x and with each other, in order.
func pairwiseCoprimesUntil(x int) []int {
	var out []int
	for cur := 1; cur <= x; cur++ {
		if gcd(cur, x) != 1 {
			continue
		}
		ok := true
		for _, p := range out {
			if gcd(p, cur) != 1 {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, cur)
		}
	}
	return out
}

// booked is the balancer's count of requests it sent to an instance and
// has not heard back from (its semaphore of slots).
type booked struct{ n atomic.Int64 }

func (b *booked) tryAcquire(slots int64) bool {
	for {
		v := b.n.Load()
		if v >= slots {
			return false
		}
		if b.n.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// shardPlan is where the balancer starts and how it steps for n instances:
// worked out when the number of instances changes, not per request.
type shardPlan struct{ n, home, step int }

func newShardPlan(hash, n int) *shardPlan {
	steps := pairwiseCoprimesUntil(n)
	return &shardPlan{n: n, home: hash % n, step: steps[hash%len(steps)]}
}

// pickSharding schedules one request over the ready instances (nil: none).
// The slot it takes is given back by the router's done.
func (r *router) pickSharding() *instance {
	l := r.ready()
	n := len(l)
	if n == 0 {
		return nil
	}
	p := r.shard.Load()
	if p == nil || p.n != n {
		p = newShardPlan(r.shardHash, n)
		r.shard.Store(p)
	}
	index, step := p.home, p.step
	slots := int64(r.f.req.Concurrency)
	for range n {
		if in := l[index]; in.booked.tryAcquire(slots) {
			return in
		}
		index = (index + step) % n
	}
	in := l[rand.IntN(n)] // overload: a random instance, whose queue holds it
	in.booked.n.Add(1)
	return in
}
