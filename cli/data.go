package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/dataset"
)

// dataCmd is faasbench data images|corpus|payloads: the benchmarks' input
// data, generated reproducibly from a seed.
func (a *app) dataCmd() *cobra.Command {
	parent := &cobra.Command{
		Use:   "data",
		Short: "Generate input data from a seed: images (seed 000), text corpora (seed 002), payload files",
	}
	var out string
	var seed uint64
	parent.PersistentFlags().StringVar(&out, "out", "", "directory to write into (required)")
	parent.PersistentFlags().Uint64Var(&seed, "seed", 1, "seed: the same seed gives the same bytes")
	report := func(kind string, paths []string) error {
		if a.json() {
			return json.NewEncoder(a.env.Stdout).Encode(map[string]any{"kind": kind, "dir": out, "seed": seed, "files": paths})
		}
		fmt.Fprintf(a.env.Stdout, "%d %s written to %s (seed %d)\n", len(paths), kind, out, seed)
		return nil
	}
	needOut := func() error {
		if out == "" {
			return usageErr("--out: required")
		}
		return nil
	}

	var img dataset.ImageSpec
	images := &cobra.Command{
		Use:   "images",
		Short: "16-bit RGB PNGs like seed 000's (about 3 MiB at 800×800; every 25th 600×600)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needOut(); err != nil {
				return err
			}
			if img.Count < 1 {
				return usageErr("--count: %d: want at least 1", img.Count)
			}
			img.Seed = seed
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			paths, err := dataset.Images(ctx, out, img)
			if err != nil {
				return interrupted(ctx, err)
			}
			return report("images", paths)
		},
	}
	images.Flags().IntVar(&img.Count, "count", 10, "number of images (seed 000 used 1000)")
	images.Flags().IntVar(&img.Large, "large", 800, "side of most images, pixels")
	images.Flags().IntVar(&img.Small, "small", 600, "side of every --small-every-th image, pixels")
	images.Flags().IntVar(&img.SmallEvery, "small-every", 25, "every n-th image is small")

	var cs dataset.CorpusSpec
	corpus := &cobra.Command{
		Use:   "corpus",
		Short: "Text documents with Zipf-distributed words (for wordcount and mapreduce; seed 002 used 200)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needOut(); err != nil {
				return err
			}
			if cs.Docs < 1 || cs.Words < 1 || cs.Vocabulary < 2 {
				return usageErr("--docs %d, --words %d, --vocabulary %d: want at least 1, 1 and 2", cs.Docs, cs.Words, cs.Vocabulary)
			}
			cs.Seed = seed
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			paths, err := dataset.Corpus(ctx, out, cs)
			if err != nil {
				return interrupted(ctx, err)
			}
			return report("documents", paths)
		},
	}
	corpus.Flags().IntVar(&cs.Docs, "docs", 200, "number of documents")
	corpus.Flags().IntVar(&cs.Words, "words", 2000, "words per document")
	corpus.Flags().IntVar(&cs.Vocabulary, "vocabulary", 5000, "distinct words")

	var sizes string
	payloads := &cobra.Command{
		Use:   "payloads",
		Short: "One file of seeded random bytes per size (the bytes faasbench load sends for that seed)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := needOut(); err != nil {
				return err
			}
			list, err := parseSizes(sizes)
			if err != nil {
				return usageErr("--sizes: %v", err)
			}
			paths, err := dataset.Payloads(out, seed, list)
			if err != nil {
				return err
			}
			return report("payloads", paths)
		},
	}
	payloads.Flags().StringVar(&sizes, "sizes", "1,1KiB,1MiB", "comma-separated sizes: bytes, or with KiB/MiB; 'pow2:0..24' for 2^0..2^24 (seed 000)")
	parent.AddCommand(images, corpus, payloads)
	return parent
}

// parseSizes reads "1,10,1KiB,16MiB" or "pow2:0..24".
func parseSizes(s string) ([]int, error) {
	if rest, ok := strings.CutPrefix(s, "pow2:"); ok {
		lo, hi, ok := strings.Cut(rest, "..")
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if !ok || err1 != nil || err2 != nil || a < 0 || b < a || b > 28 {
			return nil, fmt.Errorf("%q: want pow2:A..B with 0 <= A <= B <= 28", s)
		}
		var out []int
		for e := a; e <= b; e++ {
			out = append(out, 1<<e)
		}
		return out, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		switch {
		case strings.HasSuffix(f, "KiB"):
			mult, f = 1<<10, strings.TrimSuffix(f, "KiB")
		case strings.HasSuffix(f, "MiB"):
			mult, f = 1<<20, strings.TrimSuffix(f, "MiB")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a size (e.g. 1, 1KiB, 16MiB)", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// interrupted gives an error its exit code: 130 when a signal ended the work.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return withCode(ExitInterrupted, fmt.Errorf("interrupted: %w", err))
	}
	return err
}
