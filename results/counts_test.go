package results

import "testing"

func TestFormatCounts(t *testing.T) {
	m := map[string]int64{"http-503": 2, "connect": 1, "ok": 9}
	if got := FormatCounts(m, " "); got != "connect=1 http-503=2 ok=9" {
		t.Fatalf("FormatCounts = %q", got)
	}
	if got := FormatCounts(nil, ";"); got != "" {
		t.Fatalf("empty: %q", got)
	}
	if k := SortedKeys(m); len(k) != 3 || k[0] != "connect" || k[2] != "ok" {
		t.Fatalf("SortedKeys = %v", k)
	}
}
