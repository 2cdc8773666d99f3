package kube

import (
	"fmt"
	"sort"
	"sync"
	"testing"
)

func TestFunctionsIsSafeForConcurrentUse(t *testing.T) {
	var f Functions[int]
	if _, ok := f.Get("none"); ok {
		t.Fatal("a zero Functions has something")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			f.Put(fmt.Sprint("f", i), i)
			f.Get("f0")
		}(i)
	}
	wg.Wait()
	f.Delete("f3")
	names := f.Names()
	sort.Strings(names)
	if fmt.Sprint(names) != "[f0 f1 f2 f4 f5 f6 f7]" {
		t.Errorf("names %v", names)
	}
	if v, ok := f.Get("f5"); !ok || v != 5 {
		t.Errorf("f5 = %d %v", v, ok)
	}
}
