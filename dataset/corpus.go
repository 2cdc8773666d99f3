package dataset

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// CorpusSpec describes a text corpus: Docs documents of about Words words
// each, drawn from a Zipf-distributed vocabulary (as natural text is, so
// that word counts and first-letter counts look like seed 002's news
// documents).
type CorpusSpec struct {
	Docs       int
	Words      int // per document (default 2000)
	Vocabulary int // distinct words (default 5000)
	Seed       uint64
}

// DocName is the file name of document i.
func DocName(i int) string { return fmt.Sprintf("doc-%04d.txt", i) }

// Corpus writes the documents into dir and returns their paths.
// ctx ends it between documents and within a long one (SIGINT acts at once).
func Corpus(ctx context.Context, dir string, spec CorpusSpec) ([]string, error) {
	if spec.Words == 0 {
		spec.Words = 2000
	}
	if spec.Vocabulary == 0 {
		spec.Vocabulary = 5000
	}
	if spec.Docs < 1 || spec.Words < 1 || spec.Vocabulary < 2 {
		return nil, fmt.Errorf("dataset: corpus: docs %d, words %d, vocabulary %d: want at least 1, 1, 2", spec.Docs, spec.Words, spec.Vocabulary)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	vocab := Vocabulary(spec.Seed, spec.Vocabulary)
	paths := make([]string, 0, spec.Docs)
	for i := 0; i < spec.Docs; i++ {
		path := filepath.Join(dir, DocName(i))
		if err := writeDoc(ctx, path, vocab, rand.New(rand.NewPCG(spec.Seed, uint64(i)+1)), spec.Words); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// Vocabulary returns n distinct lower-case words of a seed.
func Vocabulary(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for len(out) < n {
		b := make([]byte, 2+r.IntN(9))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func writeDoc(ctx context.Context, path string, vocab []string, r *rand.Rand, words int) error {
	return writeFile(path, func(w *bufio.Writer) error {
		z := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
		for i := 0; i < words; i++ {
			if i%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			sep := " "
			switch {
			case i == words-1:
				sep = "\n"
			case i%12 == 11:
				sep = ".\n"
			}
			_, _ = w.WriteString(vocab[z.Uint64()])
			_, _ = w.WriteString(sep)
		}
		return nil
	})
}

// TextName is the file name of the i-th text file of a text data set.
func TextName(i int) string { return fmt.Sprintf("text-%d.txt", i) }

// Text writes one file of Zipf-distributed words per size (bytes, about:
// the file ends with the word that crosses the size) and returns the paths.
// ctx ends it within a file (a 3 GB file takes most of a minute).
func Text(ctx context.Context, dir string, seed uint64, sizes []int64) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	vocab := Vocabulary(seed, 5000)
	var paths []string
	for i, size := range sizes {
		if size < 1 {
			return paths, fmt.Errorf("dataset: text size %d: want at least 1 byte", size)
		}
		path := filepath.Join(dir, TextName(i))
		if err := writeText(ctx, path, vocab, rand.New(rand.NewPCG(seed, uint64(i)+1)), size); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// checkEvery is how many words go by between looks at the context.
const checkEvery = 1 << 14

func writeText(ctx context.Context, path string, vocab []string, r *rand.Rand, size int64) error {
	return writeFile(path, func(w *bufio.Writer) error {
		z := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
		var n int64
		for i := 0; n < size; i++ {
			if i%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			word := vocab[z.Uint64()]
			sep := " "
			if i%12 == 11 {
				sep = "\n"
			}
			_, _ = w.WriteString(word)
			_, _ = w.WriteString(sep)
			n += int64(len(word) + 1)
		}
		return nil
	})
}
