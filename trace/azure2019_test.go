package trace

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

const inv2019 = "HashOwner,HashApp,HashFunction,Trigger,1,2,3\n" +
	"o1,a1,f1,http,1,0,2\n" +
	"o1,a1,f2,timer,0,0,1\n\n" + // a blank line: the lines after it still say where they are
	"o2,a2,f3,queue,5,5,5\n"

const dur2019 = "HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum,percentile_Average_0,percentile_Average_1,percentile_Average_25,percentile_Average_50,percentile_Average_75,percentile_Average_99,percentile_Average_100\n" +
	"o1,a1,f1,100,3,50,200,50,55,80,100,120,190,200\n" +
	"o9,a9,f9,1,1,1,1,1,1,1,1,1,1,1\n" + // no invocations that day: ignored
	"o2,a2,f3,10,15,1,30,1,2,5,10,15,29,30\n"

const mem2019 = "HashOwner,HashApp,SampleCount,AverageAllocatedMb,AverageAllocatedMb_pct1,AverageAllocatedMb_pct5,AverageAllocatedMb_pct25,AverageAllocatedMb_pct50,AverageAllocatedMb_pct75,AverageAllocatedMb_pct95,AverageAllocatedMb_pct99,AverageAllocatedMb_pct100\n" +
	"o1,a1,36,150,100,110,130,150,170,190,199,200\n"

func read2019(inv, dur, mem string) (*Trace, error) {
	f := Files2019{Invocations: strings.NewReader(inv), InvocationsName: "inv.csv", DurationsName: "dur.csv", MemoryName: "mem.csv"}
	if dur != "" {
		f.Durations = strings.NewReader(dur)
	}
	if mem != "" {
		f.Memory = strings.NewReader(mem)
	}
	return ReadAzure2019(f, ReadOptions{})
}

func TestReadAzure2019JoinsTheThreeFiles(t *testing.T) {
	tr, err := read2019(inv2019, dur2019, mem2019)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Minutes != 3 || len(tr.Functions) != 3 || tr.Invocations() != 19 {
		t.Fatalf("minutes %d, %d functions, %d invocations", tr.Minutes, len(tr.Functions), tr.Invocations())
	}
	f1, f2, f3 := tr.Functions[0], tr.Functions[1], tr.Functions[2]
	if !reflect.DeepEqual(f1.PerMinute, []int32{1, 0, 2}) || f2.Trigger != "timer" {
		t.Errorf("f1 %v, f2 trigger %q", f1.PerMinute, f2.Trigger)
	}
	if f1.Duration == nil || f1.Duration.Average != 100 || f1.Duration.Max != 200 || f1.Duration.At(50) != 100 || f1.Duration.At(62.5) != 110 {
		t.Errorf("f1 duration %+v", f1.Duration)
	}
	if f2.Duration != nil {
		t.Errorf("f2 has no durations row: %+v", f2.Duration)
	}
	// Memory is per application: f1 and f2 share a1's.
	if f1.MemoryMB == nil || f1.MemoryMB != f2.MemoryMB || f1.MemoryMB.At(50) != 150 || f3.MemoryMB != nil {
		t.Errorf("memory %+v %+v %+v", f1.MemoryMB, f2.MemoryMB, f3.MemoryMB)
	}
}

// Bad input names the file, its line, and the function or column.
func TestReadAzure2019RefusesBadInput(t *testing.T) {
	long := strings.Replace(dur2019, "o2,a2,f3,10,", "o2,a2,f3,61000,", 1)
	cases := []struct{ name, inv, dur, mem, want string }{
		{"missing column", strings.Replace(inv2019, "Trigger", "Trig", 1), "", "", `inv.csv: no column "Trigger"`},
		{"no minutes", "HashOwner,HashApp,HashFunction,Trigger\no,a,f,http\n", "", "", "no minute columns"},
		{"negative count", strings.Replace(inv2019, "o1,a1,f2,timer,0,0,1", "o1,a1,f2,timer,0,-4,1", 1), "", "", "inv.csv: line 3: function a1/f2 minute 2: -4 invocations is negative"},
		{"not a count", strings.Replace(inv2019, "5,5,5", "5,x,5", 1), "", "", `line 5: function a2/f3 minute 2: "x" is not a count`},
		{"short row", strings.Replace(inv2019, "5,5,5", "5,5", 1), "", "", "line 5: function a2/f3 has no minute 3"},
		{"duplicate", inv2019 + "o1,a1,f1,http,0,0,0\n", "", "", "line 6: function a1/f1 is on line 2 too"},
		{"longer than a minute", inv2019, long, "", "dur.csv: line 4: function a2/f3 runs 61000 ms on average, longer than 60000 ms"},
		{"percentiles out of order", inv2019, strings.Replace(dur2019, "50,55,80,100", "50,55,80,70", 1), "", "dur.csv: line 2: percentile_Average_50 70 is below percentile_Average_25 80"},
		{"negative memory", inv2019, "", strings.Replace(mem2019, "o1,a1,36,150", "o1,a1,36,-150", 1), "mem.csv: line 2: AverageAllocatedMb -150 is negative"},
		{"no functions", "HashOwner,HashApp,HashFunction,Trigger,1\n", "", "", "inv.csv: no functions"},
	}
	for _, c := range cases {
		_, err := read2019(c.inv, c.dur, c.mem)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A longer limit accepts the long function.
	if _, err := ReadAzure2019(Files2019{Invocations: strings.NewReader(inv2019), Durations: strings.NewReader(long)}, ReadOptions{MaxDuration: 2 * time.Minute}); err != nil {
		t.Errorf("with a 2-minute limit: %v", err)
	}
}

// What WriteAzure2019 writes reads back the same.
func TestAzure2019RoundTrip(t *testing.T) {
	tr, err := Synthesize(SynthOptions{Functions: 50, Minutes: 30, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var inv, dur, mem bytes.Buffer
	if err := WriteAzure2019(tr, &inv, &dur, &mem); err != nil {
		t.Fatal(err)
	}
	back, err := ReadAzure2019(Files2019{Invocations: &inv, Durations: &dur, Memory: &mem}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr, back) {
		t.Errorf("read back differs:\n%+v\n%+v", tr.Functions[0], back.Functions[0])
	}
}
