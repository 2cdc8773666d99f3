package plan

import (
	"strconv"
	"strings"

	"github.com/faasbench/faasbench/spec"
)

// Param is one grid value of a cell.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Params are a cell's grid values, in the order of the grid's dimensions.
type Params []Param

// Get returns the value of name.
func (ps Params) Get(name string) (string, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// Int returns the value of name as an integer.
func (ps Params) Int(name string) (int, bool) {
	v, ok := ps.Get(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// Float returns the value of name as a number.
func (ps Params) Float(name string) (float64, bool) {
	v, ok := ps.Get(name)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// String is "/name=value/..." ("" for none).
func (ps Params) String() string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("/" + p.Name + "=" + p.Value)
	}
	return b.String()
}

// With returns ps followed by more (a new slice).
func (ps Params) With(more Params) Params {
	if len(ps)+len(more) == 0 {
		return nil
	}
	out := make(Params, 0, len(ps)+len(more))
	return append(append(out, ps...), more...)
}

// Grid returns every combination of the vary lists (one empty point when
// nothing varies), the first dimension slowest.
func Grid(v spec.Vary) []Params {
	type dim struct {
		name   string
		values []string
	}
	var dims []dim
	addInts := func(name string, xs []int) {
		if len(xs) > 0 {
			d := dim{name: name}
			for _, x := range xs {
				d.values = append(d.values, strconv.Itoa(x))
			}
			dims = append(dims, d)
		}
	}
	addStrs := func(name string, xs []string) {
		if len(xs) > 0 {
			dims = append(dims, dim{name, xs})
		}
	}
	addInts("replicas", v.Replicas)
	addInts("workers", v.Workers)
	addStrs("mode", v.Mode)
	addInts("memory_mb", v.MemoryMB)
	if len(v.CPUs) > 0 {
		d := dim{name: "cpus"}
		for _, c := range v.CPUs {
			d.values = append(d.values, strconv.FormatFloat(c, 'g', -1, 64))
		}
		dims = append(dims, d)
	}
	addStrs("routing", v.Routing)
	addInts("payload_size", v.PayloadSize)
	addStrs("path", v.Path)
	points := []Params{nil}
	for _, d := range dims {
		var next []Params
		for _, p := range points {
			for _, val := range d.values {
				next = append(next, p.With(Params{{d.name, val}}))
			}
		}
		points = next
	}
	return points
}
