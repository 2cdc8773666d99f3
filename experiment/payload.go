package experiment

import (
	"fmt"
	"io"
	"os"

	"github.com/faasbench/faasbench/spec"
)

// ReadPayload reads a request body from a file, refusing what is not a
// regular file of at most spec.MaxPayloadSize bytes (checked again here: the
// file may have changed since the spec was validated, and a path from
// ${data.*} is known only now).
func ReadPayload(path string, roots ...string) ([]byte, error) {
	if err := spec.CheckPayloadFile(path, roots...); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ReadBody(path)
}

// ReadBody reads a file checked to be a body, bounded by spec.MaxPayloadSize
// (a file that grows while read is an error).
func ReadBody(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, spec.MaxPayloadSize+1))
	if err == nil && len(b) > spec.MaxPayloadSize {
		err = fmt.Errorf("%s grew past %d bytes while read", path, spec.MaxPayloadSize)
	}
	return b, err
}
