package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/faasbench/faasbench/internal/fileutil"
)

// WriteFigures writes every chart of the report as an SVG file into dir
// (for papers), and as a PNG beside it when rsvg-convert (Debian's
// librsvg2-bin) is installed. It returns the files written and, when no
// PNG could be made, why.
func WriteFigures(dir string, runs []Run) (files []string, note string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("figures: %w", err)
	}
	conv, lerr := exec.LookPath("rsvg-convert")
	if lerr != nil {
		note = "no PNG figures: rsvg-convert (Debian librsvg2-bin) is not installed"
	}
	for i, c := range Charts(runs) {
		base := filepath.Join(dir, fmt.Sprintf("%02d-%s", i+1, slug(c.Name())))
		svg := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + c.SVG()
		if err := writeAtomic(base+".svg", []byte(svg)); err != nil {
			return files, note, fmt.Errorf("figures: %w", err)
		}
		files = append(files, base+".svg")
		if conv == "" {
			continue
		}
		// On its standard output, written here through a new temporary file
		// and a rename: rsvg-convert -o would follow a link planted at a
		// name it was given, and a full disk leaves no truncated figure.
		cmd := exec.Command(conv, "--zoom", "2", "--background-color", "white", base+".svg")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		png, err := cmd.Output()
		if err != nil {
			return files, note, fmt.Errorf("figures: rsvg-convert %s: %v: %s", base+".svg", err, stderr.Bytes())
		}
		if err := writeAtomic(base+".png", png); err != nil {
			return files, note, fmt.Errorf("figures: %w", err)
		}
		files = append(files, base+".png")
	}
	return files, note, nil
}

// writeAtomic replaces path with b (fileutil.WriteAtomic).
func writeAtomic(path string, b []byte) error {
	return fileutil.WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
