package livemetrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// exported are the metric families the exporter describes.
func exported() map[string]bool {
	ch := make(chan *prometheus.Desc, 64)
	collector{New()}.Describe(ch)
	close(ch)
	name := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	out := map[string]bool{}
	for d := range ch {
		if m := name.FindStringSubmatch(d.String()); m != nil {
			out[m[1]] = true
		}
	}
	return out
}

// Every query of the Grafana dashboard (grafana-dashboard.json) names series
// the exporter serves (a histogram's _bucket, _sum and _count of one it
// describes), and every panel has one.
func TestDashboardQueriesNameExportedSeries(t *testing.T) {
	b, err := os.ReadFile("grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct{ List []struct{ Query any } }
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	have := exported()
	if len(have) < 10 {
		t.Fatalf("exported families %v", have)
	}
	series := regexp.MustCompile(`faasbench_[a-z_]+`)
	var exprs []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if s, ok := v.Query.(string); ok {
			exprs = append(exprs, s)
		}
	}
	used := 0
	for _, e := range exprs {
		names := series.FindAllString(e, -1)
		if len(names) == 0 && !strings.Contains(e, "prometheus") {
			t.Errorf("query %q names no faasbench series", e)
		}
		for _, n := range names {
			base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_sum"), "_count")
			if !have[n] && !have[base] {
				t.Errorf("query %q names %s, which the exporter does not serve", e, n)
			}
			used++
		}
	}
	if used == 0 {
		t.Error("no query read")
	}
}
