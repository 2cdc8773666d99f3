package load

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseScheduleSpecs(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.csv")
	os.WriteFile(trace, []byte("offset_ms\n0\n1.5\n1.5\n10\n"), 0o644)
	az := filepath.Join(dir, "az.csv")
	os.WriteFile(az, []byte("HashOwner,HashApp,HashFunction,Trigger,1,2,3\na,b,c,http,2,0,1\nd,e,f,http,0,0,0\n"), 0o644)
	for _, tc := range []struct {
		in   string
		want []time.Duration
	}{
		{"constant:2", []time.Duration{0, 500 * time.Millisecond, time.Second}},
		{"burst:2/1s", []time.Duration{0, 0, time.Second}},
		{"stages:1s@2,~1s@4", []time.Duration{0, 500 * time.Millisecond, time.Second}},
		{"trace:" + trace, []time.Duration{0, 1500 * time.Microsecond, 1500 * time.Microsecond, 10 * time.Millisecond}},
		{"azure:" + az + "#0", []time.Duration{15 * time.Second, 45 * time.Second, 2*time.Minute + 30*time.Second}},
	} {
		sp, err := ParseScheduleSpec(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		s, err := sp.Build(1, 0, int64(len(tc.want)))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		got := offsets(t, s, 100)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %v, want %v", tc.in, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("%s: offset %d = %v, want %v", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

func TestParseErrorsNameTheProblem(t *testing.T) {
	for in, want := range map[string]string{
		"constant":           "want KIND:ARG",
		"constant:-3":        "positive number",
		"warp:9":             "unknown kind",
		"burst:5":            "want SIZE/EVERY",
		"burst:0/1s":         "positive whole number",
		"stages:10s":         "want DURATION@RATE",
		"stages:10s@-1":      "not a number ≥ 0",
		"stages:0s@5":        "positive duration",
		"trace:/nonexistent": "no such file",
		"azure:/x#row":       "not a row number",
	} {
		_, err := ParseScheduleSpec(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	for csvText, want := range map[string]string{
		"x\n1\n":                  "no offset_ns",
		"offset_ms\n5\n3\n":       "before the previous",
		"offset_ms\nabc\n":        "not a number",
		"offset_ms\n":             "no offsets",
		"offset_s,x\n1,2\n-1,2\n": "not a number ≥ 0",
	} {
		if _, err := ParseOffsetsCSV(strings.NewReader(csvText)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", csvText, err, want)
		}
	}
}

func TestWrittenScheduleReplaysExactly(t *testing.T) {
	p, err := NewPoisson(300, 9, 2*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	n, err := WriteSchedule(&b, Limit{S: p, Duration: 2 * time.Second})
	if err != nil || n < 500 {
		t.Fatalf("wrote %d: %v", n, err)
	}
	back, err := ParseOffsetsCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(back)) != n {
		t.Fatalf("replayed %d of %d", len(back), n)
	}
	for i := range back {
		if want, _ := p.Offset(int64(i)); back[i] != want {
			t.Fatalf("offset %d: replay %v, original %v", i, back[i], want)
		}
	}
}

func FuzzParseScheduleSpec(f *testing.F) {
	for _, s := range []string{"constant:10", "poisson:5", "burst:3/2s", "stages:1s@10,~2s@0,1s@3", "stages:~1ms@1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.HasPrefix(s, "trace:") || strings.HasPrefix(s, "azure:") {
			return // file kinds are fuzzed through their parsers
		}
		sp, err := ParseScheduleSpec(s)
		if err != nil {
			return
		}
		sched, err := sp.Build(1, 100*time.Millisecond, 2000)
		if err != nil {
			return
		}
		prev := time.Duration(-1)
		for i := int64(0); i < 2000; i++ {
			off, ok := sched.Offset(i)
			if !ok {
				break
			}
			if off < prev || off < 0 || off >= 100*time.Millisecond {
				t.Fatalf("%q: offset %d = %v after %v", s, i, off, prev)
			}
			prev = off
		}
	})
}

func FuzzParseOffsetsCSV(f *testing.F) {
	f.Add("offset_ms\n0\n1\n2.5\n")
	f.Add("index,offset_ns\n0,0\n1,100\n")
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOffsetsCSV(strings.NewReader(s))
		if err != nil {
			return
		}
		for i := 1; i < len(o); i++ {
			if o[i] < o[i-1] || o[i] < 0 {
				t.Fatalf("accepted decreasing or negative offsets: %v", o)
			}
		}
	})
}

func FuzzParseAzureCSV(f *testing.F) {
	f.Add("HashOwner,HashApp,HashFunction,Trigger,1,2\na,b,c,http,3,1\n", 0)
	f.Fuzz(func(t *testing.T, s string, row int) {
		if len(s) > 4096 {
			return
		}
		o, err := ParseAzureCSV(strings.NewReader(s), row)
		if err != nil {
			return
		}
		for i := 1; i < len(o); i++ {
			if o[i] < o[i-1] {
				t.Fatalf("decreasing offsets")
			}
		}
	})
}
