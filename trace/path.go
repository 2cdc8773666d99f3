package trace

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The formats a trace on disk is in.
const (
	Azure2019 = "azure2019"
	Azure2021 = "azure2021"
)

// Names2019 are the 2019 trace's file names for a day
// (AzureFunctionsDataset2019.md).
func Names2019(day int) (inv, dur, mem string) {
	d := fmt.Sprintf("d%02d", day)
	return "invocations_per_function_md.anon." + d + ".csv", "function_durations_percentiles.anon." + d + ".csv", "app_memory_percentiles.anon." + d + ".csv"
}

// PathOptions say how ReadPath reads.
type PathOptions struct {
	ReadOptions
	// Day is the 2019 trace's day (1..14; 0: 1).
	Day int
	// Check, if set, is asked about every file before it is opened (e.g.
	// that it stays under the spec's directory); an error stops the read.
	Check func(path string) error
}

// ReadPath reads a trace from disk: a directory is one day of the 2019
// trace (its durations and memory files may be absent: a trace of counts
// only), a file is the 2021 trace. It returns the trace and its format.
func ReadPath(path string, o PathOptions) (*Trace, string, error) {
	if o.Day == 0 {
		o.Day = 1
	}
	if o.Day < 1 || o.Day > 14 {
		return nil, "", fmt.Errorf("day %d: the 2019 trace has days 1..14", o.Day)
	}
	open := func(p string) (*os.File, error) {
		if o.Check != nil {
			if err := o.Check(p); err != nil {
				return nil, fmt.Errorf("trace %s: %w", p, err)
			}
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("trace %s: %w", p, err)
		}
		return f, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("trace %s: %w", path, err)
	}
	if !st.IsDir() {
		f, err := open(path)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		t, err := ReadAzure2021(bufio.NewReaderSize(f, 1<<20), path, o.ReadOptions)
		return t, Azure2021, err
	}
	inv, dur, mem := Names2019(o.Day)
	files := Files2019{InvocationsName: filepath.Join(path, inv), DurationsName: filepath.Join(path, dur), MemoryName: filepath.Join(path, mem)}
	f, err := open(files.InvocationsName)
	if err != nil {
		return nil, "", fmt.Errorf("day %d: %w", o.Day, err)
	}
	defer f.Close()
	files.Invocations = bufio.NewReaderSize(f, 1<<20)
	for _, opt := range []struct {
		name string
		r    *io.Reader
	}{{files.DurationsName, &files.Durations}, {files.MemoryName, &files.Memory}} {
		if _, err := os.Lstat(opt.name); os.IsNotExist(err) {
			continue // a trace of counts only
		}
		f, err := open(opt.name)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		*opt.r = bufio.NewReaderSize(f, 1<<20)
	}
	t, err := ReadAzure2019(files, o.ReadOptions)
	return t, Azure2019, err
}
