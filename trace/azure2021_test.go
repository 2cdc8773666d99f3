package trace

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Rows as the dataset's description shows them (ids shortened).
const inv2021 = "app,func,end_timestamp,duration\n" +
	"a1,f1,5160.142570018768,0.134\n" +
	"a2,f2,5161.280997037888,0.013\n" +
	"a1,f1,5100.5,0.5\n" +
	"a3,f3,5241.567729949951,42.356\n"

func TestReadAzure2021(t *testing.T) {
	tr, err := ReadAzure2021(strings.NewReader(inv2021), "2021.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Functions) != 3 || tr.Invocations() != 4 || tr.Minutes != 87 {
		t.Fatalf("%d functions, %d invocations, %d minutes", len(tr.Functions), tr.Invocations(), tr.Minutes)
	}
	f1 := tr.Functions[0]
	// Starts are end - duration, in order (the file had them out of order).
	want := []time.Duration{5100 * time.Second, time.Duration(5160008570018)}
	if len(f1.Starts) != 2 || f1.Starts[0] != want[0] || (f1.Starts[1]-want[1]).Abs() > time.Microsecond {
		t.Errorf("starts %v, want %v", f1.Starts, want)
	}
	if f1.Durations[0] != 500*time.Millisecond || f1.PerMinute[85] != 1 || f1.PerMinute[86] != 1 {
		t.Errorf("durations %v, minutes 85,86: %d %d", f1.Durations, f1.PerMinute[85], f1.PerMinute[86])
	}
	if f1.Duration.Count != 2 || f1.Duration.Min != 134 || f1.Duration.Max != 500 || f1.Duration.Average != 317 {
		t.Errorf("summary %+v", f1.Duration)
	}
	var buf bytes.Buffer
	if err := WriteAzure2021(tr, &buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadAzure2021(&buf, "", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Functions[2].PerMinute, tr.Functions[2].PerMinute) || back.Invocations() != 4 {
		t.Errorf("read back: %v", back.Functions[2].PerMinute)
	}
}

func TestReadAzure2021RefusesBadInput(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"missing column", strings.Replace(inv2021, "duration", "dur", 1), `2021.csv: no column "duration"`},
		{"negative duration", strings.Replace(inv2021, "0.013", "-0.013", 1), "2021.csv: line 3: duration -0.013 is negative"},
		{"not a number", strings.Replace(inv2021, "5100.5", "soon", 1), `2021.csv: line 4: end_timestamp "soon" is not a number`},
		{"no app", inv2021 + ",f,1,1\n", "line 6: no app or func"},
		{"longer than a minute", inv2021 + "a4,f4,100,75\n", "2021.csv: line 6: function a4/f4 (first here) runs 75000 ms on average, longer than 60000 ms"},
		{"empty", "app,func,end_timestamp,duration\n", "2021.csv: no invocations"},
	}
	for _, c := range cases {
		_, err := ReadAzure2021(strings.NewReader(c.in), "2021.csv", ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// An invocation that started before the trace's zero moves the origin to
// its start: offsets are never negative.
func TestReadAzure2021StartBeforeZero(t *testing.T) {
	tr, err := ReadAzure2021(strings.NewReader(inv2021+"a5,f5,1.0,3.0\n"), "", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f5 := tr.Functions[3]; f5.Starts[0] != 0 || tr.Functions[0].Starts[0] != 5102*time.Second {
		t.Errorf("f5 starts %v, f1 %v", f5.Starts, tr.Functions[0].Starts)
	}
}
