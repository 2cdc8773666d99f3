package affinity

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-2": {0, 1, 2}, "3,0-1": {3, 0, 1}, " 1 , 1 ": {1}} {
		got, err := Parse(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "2-1", "1,", "-1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) should fail", bad)
		}
	}
	if Format([]int{0, 2}) != "0,2" {
		t.Error("Format")
	}
}

func TestSplit(t *testing.T) {
	p, g := Split([]int{0, 1})
	if !reflect.DeepEqual(p, []int{0}) || !reflect.DeepEqual(g, []int{1}) {
		t.Errorf("split of 2: %v %v", p, g)
	}
	p, g = Split([]int{0})
	if !reflect.DeepEqual(p, []int{0}) || !reflect.DeepEqual(g, []int{0}) {
		t.Errorf("split of 1: %v %v", p, g)
	}
}

func TestPinProcessKeepsOnlineSet(t *testing.T) {
	online, err := Online()
	if err != nil || len(online) == 0 {
		t.Fatalf("online: %v %v", online, err)
	}
	// Pinning to what we already have must succeed and change nothing.
	if err := PinProcess(online); err != nil {
		t.Fatal(err)
	}
	after, _ := Online()
	if !reflect.DeepEqual(after, online) {
		t.Fatalf("online %v after pinning to %v", after, online)
	}
}
