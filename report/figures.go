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
		if err := writeAtomic(base+".svg", []byte(svg)); err != nil {
			return files, note, fmt.Errorf("figures: %w", err)
		}
		files = append(files, base+".svg")
		if conv == "" {
			continue
		}
		// To a temporary name, renamed when complete (a full disk leaves no
		// truncated figure).
		tmp := filepath.Join(dir, "."+filepath.Base(base)+".png.tmp")
		if out, err := exec.Command(conv, "--zoom", "2", "--background-color", "white", "-o", tmp, base+".svg").CombinedOutput(); err != nil {
			os.Remove(tmp)
			return files, note, fmt.Errorf("figures: rsvg-convert %s: %v: %s", base+".svg", err, out)
		}
		if err := os.Rename(tmp, base+".png"); err != nil {
			os.Remove(tmp)
			return files, note, fmt.Errorf("figures: %w", err)
		}
		files = append(files, base+".png")
	}
	return files, note, nil
}

// writeAtomic replaces path with b through a temporary file and a rename.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
