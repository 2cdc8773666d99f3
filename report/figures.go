package report

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
		if err := os.WriteFile(base+".svg", []byte(svg), 0o644); err != nil {
			return files, note, fmt.Errorf("figures: %w", err)
		}
		files = append(files, base+".svg")
		if conv == "" {
			continue
		}
		if out, err := exec.Command(conv, "--zoom", "2", "--background-color", "white", "-o", base+".png", base+".svg").CombinedOutput(); err != nil {
			return files, note, fmt.Errorf("figures: rsvg-convert %s: %v: %s", base+".svg", err, out)
		}
		files = append(files, base+".png")
	}
	return files, note, nil
}
