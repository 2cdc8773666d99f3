// Package dataset generates the benchmarks' input data reproducibly from a
// seed: PNG images like seed 000's set, text corpora for wordcount and
// mapreduce, payload files. The same seed gives the same bytes.
package dataset

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// ImageSpec describes a set of seed-000-like images: 16-bit RGB PNGs, most
// of them Large×Large and every SmallEvery-th one Small×Small (seed 000's
// 1000 images were 960 at 800×800 and 40 at 600×600: every 25th).
type ImageSpec struct {
	Count      int
	Seed       uint64
	Large      int // side in pixels (default 800)
	Small      int // side in pixels (default 600)
	SmallEvery int // default 25; 0 after defaults: none small
}

func (s ImageSpec) withDefaults() ImageSpec {
	if s.Large == 0 {
		s.Large = 800
	}
	if s.Small == 0 {
		s.Small = 600
	}
	if s.SmallEvery == 0 {
		s.SmallEvery = 25
	}
	return s
}

// ImageName is the file name of image i.
func ImageName(i int) string { return fmt.Sprintf("img-%04d.png", i) }

// Images writes spec.Count images into dir and returns their paths.
// ctx ends it between images.
func Images(ctx context.Context, dir string, spec ImageSpec) ([]string, error) {
	spec = spec.withDefaults()
	if spec.Count < 1 {
		return nil, fmt.Errorf("dataset: images: count %d: want at least 1", spec.Count)
	}
	if spec.Large < 1 || spec.Small < 1 || spec.Large > 8192 || spec.Small > 8192 {
		return nil, fmt.Errorf("dataset: images: sides %d and %d: want 1..8192", spec.Large, spec.Small)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	paths := make([]string, 0, spec.Count)
	for i := 0; i < spec.Count; i++ {
		if err := ctx.Err(); err != nil {
			return paths, err
		}
		side := spec.Large
		if (i+1)%spec.SmallEvery == 0 {
			side = spec.Small
		}
		path := filepath.Join(dir, ImageName(i))
		if err := writePNG(path, Image(spec.Seed, i, side)); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// Image is image i of a seed: smooth colour fields (so that PNG compresses
// it like a photograph, to about 3 MiB at 800×800) with seeded noise in
// the low bits. It is opaque, so PNG stores it as 16-bit RGB.
func Image(seed uint64, i, side int) *image.RGBA64 {
	r := rand.New(rand.NewPCG(seed, uint64(i)+1))
	img := image.NewRGBA64(image.Rect(0, 0, side, side))
	var fx, fy, ph [3]float64
	for c := range fx {
		fx[c] = 1 + r.Float64()*6
		fy[c] = 1 + r.Float64()*6
		ph[c] = r.Float64() * 2 * math.Pi
	}
	s := float64(side)
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			var v [3]uint16
			for c := range v {
				f := 0.5 + 0.5*math.Sin(fx[c]*float64(x)/s*2*math.Pi+ph[c])*math.Cos(fy[c]*float64(y)/s*2*math.Pi)
				n := int(f*60000) + int(r.Uint32()%2048)
				v[c] = uint16(min(n, 65535))
			}
			img.SetRGBA64(x, y, color.RGBA64{R: v[0], G: v[1], B: v[2], A: 0xffff})
		}
	}
	return img
}

func writePNG(path string, img image.Image) error {
	return writeFile(path, func(w *bufio.Writer) error { return png.Encode(w, img) })
}

// writeFile creates path and fills it through a buffer; an error names the file.
func writeFile(path string, fill func(w *bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("dataset: %s: %w", path, err)
	}
	return nil
}
