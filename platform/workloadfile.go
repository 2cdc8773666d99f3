package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ReadWorkloadFile reads name, a file a function's spec names (field, e.g. "settings.code_file"), from
// the workloads directory dir. The path stays inside dir: an absolute path, a ".." that leaves dir
// and a symbolic link that points out of it are refused (os.Root), with the field named.
func ReadWorkloadFile(dir, name, field string) ([]byte, error) {
	if name == "" {
		return nil, fmt.Errorf("%s: empty; give a file of the workloads directory", field)
	}
	if !filepath.IsLocal(name) {
		return nil, fmt.Errorf("%s: %q is not a path inside the workloads directory %s (absolute paths and \"..\" that leave it are refused)", field, name, dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: the workloads directory: %w", field, err)
	}
	defer root.Close()
	b, err := root.ReadFile(name)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
			return nil, fmt.Errorf("%s: %q leaves the workloads directory %s (a symbolic link out of it): refused", field, name, dir)
		}
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return b, nil
}
