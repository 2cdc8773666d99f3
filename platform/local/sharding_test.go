package local

import (
	"slices"
	"testing"
)

func TestJavaHashAndCoprimes(t *testing.T) {
	// "guest".hashCode() in Java.
	if h := javaHash("guest"); h != 98708952 {
		t.Errorf("javaHash(guest) = %d", h)
	}
	// Overflow wraps as Java's int does: "polygenelubricants".hashCode() is Integer.MIN_VALUE.
	if h := javaHash("polygenelubricants"); h != -2147483648 {
		t.Errorf("javaHash wraps to %d", h)
	}
	// The balancer's own example: 10 invokers have the step sizes 1, 3, 7.
	if got := pairwiseCoprimesUntil(10); !slices.Equal(got, []int{1, 3, 7}) {
		t.Errorf("coprimes of 10: %v", got)
	}
	if got := pairwiseCoprimesUntil(1); !slices.Equal(got, []int{1}) {
		t.Errorf("coprimes of 1: %v", got)
	}
}

// Requests fill the home instance's slots, then the next along the step,
// and only when every instance is full does one land at random (overload);
// done gives a slot back, and the home instance is preferred again.
func TestShardingFillsHomeFirst(t *testing.T) {
	const n, slots = 4, 2
	f := &function{req: DeployRequest{Name: "prime-heavy", Concurrency: slots}}
	ins := make([]*instance, n)
	for i := range ins {
		ins[i] = &instance{id: string(rune('a' + i))}
	}
	f.ready.Store(&ins)
	r, err := newRouter(f, Sharding, false, 8)
	if err != nil {
		t.Fatal(err)
	}
	hash := shardingHash("prime-heavy")
	steps := pairwiseCoprimesUntil(n)
	home, step := hash%n, steps[hash%len(steps)]
	var order []*instance
	for i, idx := 0, home; i < n; i, idx = i+1, (idx+step)%n {
		order = append(order, ins[idx])
	}
	for i := range n * slots {
		got := r.pick()
		if want := order[i/slots]; got != want {
			t.Fatalf("request %d went to %s, want %s (home %d, step %d)", i, got.id, want.id, home, step)
		}
	}
	over := r.pick() // every slot taken: a random instance, over its slots
	if over == nil || over.booked.n.Load() != slots+1 {
		t.Fatalf("overload pick %v", over)
	}
	r.done(over)
	r.done(order[0])
	if got := r.pick(); got != order[0] {
		t.Errorf("a slot free at home again: went to %s, want %s", got.id, order[0].id)
	}
	if _, err := newRouter(f, "random", false, 8); err == nil {
		t.Error("an unknown policy was accepted")
	}
}

func TestShardingNeedsSlotsAndInstanceQueues(t *testing.T) {
	base := DeployRequest{Name: "p", Workload: "prime", Language: "node", Replicas: 2, Routing: Sharding}
	for _, c := range []struct {
		conc  int
		queue string
		ok    bool
	}{{0, "", false}, {4, QueueFunction, false}, {4, "", true}, {4, QueueInstance, true}} {
		req := base
		req.Concurrency, req.Queue = c.conc, c.queue
		if err := ValidateDeploy(req); (err == nil) != c.ok {
			t.Errorf("concurrency %d, queue %q: %v", c.conc, c.queue, err)
		}
	}
}
