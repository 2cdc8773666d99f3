package dataset

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/load"
)

func TestImagesAreReproducible16BitRGB(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	spec := ImageSpec{Count: 3, Seed: 7, Large: 64, Small: 48, SmallEvery: 3}
	pa, err := Images(context.Background(), a, spec)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := Images(context.Background(), b, spec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pa {
		x, _ := os.ReadFile(pa[i])
		y, _ := os.ReadFile(pb[i])
		if !bytes.Equal(x, y) || len(x) == 0 {
			t.Errorf("%s: two runs of one seed differ", pa[i])
		}
		// PNG header: bit depth at byte 24, colour type at 25 (2 = RGB).
		if x[24] != 16 || x[25] != 2 {
			t.Errorf("%s: bit depth %d, colour type %d; want 16-bit RGB (2)", pa[i], x[24], x[25])
		}
		img, err := png.Decode(bytes.NewReader(x))
		if err != nil {
			t.Fatal(err)
		}
		want := 64
		if i == 2 {
			want = 48
		}
		if img.Bounds().Dx() != want || img.Bounds().Dy() != want {
			t.Errorf("%s: %v, want %d×%d", pa[i], img.Bounds(), want, want)
		}
	}
	other, _ := Images(context.Background(), t.TempDir(), ImageSpec{Count: 1, Seed: 8, Large: 64})
	x, _ := os.ReadFile(pa[0])
	y, _ := os.ReadFile(other[0])
	if bytes.Equal(x, y) {
		t.Error("seeds 7 and 8 gave the same image")
	}
	if _, err := Images(context.Background(), t.TempDir(), ImageSpec{Count: 0}); err == nil {
		t.Error("count 0 accepted")
	}
}

func TestCorpusIsReproducibleAndZipfLike(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	spec := CorpusSpec{Docs: 4, Words: 3000, Vocabulary: 500, Seed: 3}
	pa, err := Corpus(context.Background(), a, spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Corpus(context.Background(), b, spec); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, p := range pa {
		x, _ := os.ReadFile(p)
		y, _ := os.ReadFile(filepath.Join(b, filepath.Base(p)))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", p)
		}
		words := strings.Fields(strings.ReplaceAll(string(x), ".", " "))
		if len(words) != 3000 {
			t.Errorf("%s: %d words, want 3000", p, len(words))
		}
		for _, w := range words {
			counts[w]++
		}
	}
	if len(counts) > 500 {
		t.Errorf("%d distinct words from a vocabulary of 500", len(counts))
	}
	vocab := Vocabulary(3, 500)
	// Zipf: the most frequent word is far more frequent than the median one.
	if top, mid := counts[vocab[0]], counts[vocab[250]]; top < 20*max(mid, 1) {
		t.Errorf("rank 1 %d times, rank 250 %d times: not Zipf-like", top, mid)
	}
}

func TestPayloadsMatchTheLoadEngine(t *testing.T) {
	dir := t.TempDir()
	paths, err := Payloads(dir, 42, []int{0, 1, 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{0, 1, 1000} {
		b, _ := os.ReadFile(paths[i])
		if !bytes.Equal(b, load.Payload(n, 42)) {
			t.Errorf("%s: not the load engine's payload of seed 42", paths[i])
		}
	}
	if _, err := Payloads(dir, 1, []int{-1}); err == nil {
		t.Error("size -1 accepted")
	}
}

// The full-size image is about 3 MiB, as seed 000's were.
func TestFullSizeImageIsAboutThreeMiB(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, Image(1, 0, 800)); err != nil {
		t.Fatal(err)
	}
	if n := buf.Len(); n < 2<<20 || n > 4<<20 {
		t.Errorf("800×800 image is %d bytes, want about 3 MiB", n)
	}
}

func TestTextFilesHaveTheirSizes(t *testing.T) {
	dir := t.TempDir()
	paths, err := Text(context.Background(), dir, 2, []int64{1000, 100_000})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{1000, 100_000} {
		st, err := os.Stat(paths[i])
		if err != nil || st.Size() < want || st.Size() > want+20 {
			t.Errorf("%s: %v bytes, want about %d", paths[i], st.Size(), want)
		}
	}
	again, _ := Text(context.Background(), t.TempDir(), 2, []int64{1000})
	a, _ := os.ReadFile(paths[0])
	b, _ := os.ReadFile(again[0])
	if !bytes.Equal(a, b) {
		t.Error("same seed, different text")
	}
}

// A cancelled context ends a long generation within the file it is
// writing, not after it (SIGINT during a 3 GB text acts at once).
func TestGenerationEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := Text(ctx, dir, 1, []int64{1 << 30}); !errors.Is(err, context.Canceled) {
		t.Fatalf("text: %v, want context.Canceled", err)
	}
	if st, err := os.Stat(filepath.Join(dir, TextName(0))); err == nil && st.Size() > 1<<20 {
		t.Errorf("a cancelled generation wrote %d bytes", st.Size())
	}
	if _, err := Corpus(ctx, t.TempDir(), CorpusSpec{Docs: 3, Words: 1 << 20}); !errors.Is(err, context.Canceled) {
		t.Errorf("corpus: %v", err)
	}
	if _, err := Images(ctx, t.TempDir(), ImageSpec{Count: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("images: %v", err)
	}
}
