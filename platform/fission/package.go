package fission

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"time"
)

// LiteralLimit is the largest literal package Fission admits (pkg/apis/core/v1/const.go
// ArchiveLiteralSizeLimit, checked by its webhook: "Package literal larger than ..."): larger archives
// go through its storage service, which faasbench does not use.
const LiteralLimit = 256 * 1024

// envRuntimes are the runtimes faasbench packages a workload for, per language: the function module
// that runs the workload inside Fission's own environment of that language (at the package's top, where
// the environment imports it from) and its entrypoint.
var envRuntimes = map[string]struct {
	module, entrypoint string
	runtime            []string // the contract runtime's files, in runtime/<lang>/
	main               string   // the workload's file the module loads
	env                string   // the environment's directory in fission/environments
}{
	// Fission's Python environment (fission/environments python/server.py) imports the package's
	// directory and calls fb_fission.main in its Flask app (workloads/runtime/python/fb_fission.py).
	"python": {module: "fb_fission.py", entrypoint: "fb_fission.main", runtime: []string{"fbrt.py"}, main: "main.py", env: "python/"},
	// Fission's Node.js environment (nodejs/server.js) imports the package's fb_fission.js and calls
	// its default export with Express's request and response (workloads/runtime/node/fb_fission.js).
	"node": {module: "fb_fission.js", entrypoint: "fb_fission", runtime: []string{"fbrt.js"}, main: "main.js", env: "nodejs/"},
}

// goModule is the go.mod of a Go workload's source package: faasbench's module path, so that the
// workload's import of fbrt resolves inside the package, and no requirement (Fission's builder pod
// reaches no module proxy here, and a plugin must share no third-party package with its loader).
const goModule = "module github.com/faasbench/faasbench\n\ngo 1.26\n"

// goPluginEntry is the file (workloads/runtime/go/fissionplugin) that gives a Go workload Fission's
// entry point; its build constraint keeps it out of faasbench's own builds and is dropped in the package.
const goPluginEntry = "runtime/go/fissionplugin/fission_plugin.go"

// goEntrypoint is the plugin's symbol Fission's Go environment serves (the Package's functionName).
const goEntrypoint = "Handler"

// zipTime is every entry's modification time: the same workload gives the same package, byte for byte.
var zipTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// WorkloadPackage packages a workload's language directory for Fission's own environment of that
// language (settings.env_image without code_file): a zip, which Fission's fetcher unpacks into the pod,
// laid out as the repository is, so that the workload finds its runtime as it does there: faasbench's
// function module for the environment at the top, runtime/<lang>/ (the contract runtime) and the
// workload's <workload>/<lang>/ directory at workload/<lang>/ (their Dockerfiles, tests, caches and actions/,
// other platforms' native code, left out); and the entrypoint Fission calls. Files are read through os.Root: nothing outside workloadsDir, no
// symbolic link out of it. A language faasbench has no module for, or a package above Fission's literal
// limit, is refused naming settings.env_image.
func WorkloadPackage(workloadsDir, workload, lang string) ([]byte, string, error) {
	if lang == "go" {
		return GoSourcePackage(workloadsDir, workload)
	}
	rt, ok := envRuntimes[lang]
	if !ok {
		return nil, "", fmt.Errorf("settings.env_image: faasbench packages %s workloads for no Fission environment (only go and %s: fission/environments' go/, python/ and nodejs/); give settings.code_file (the function's code for that image), or drop env_image (the workload's own image behind faasbench's environment server)",
			lang, strings.Join(slices.Sorted(maps.Keys(envRuntimes)), ", "))
	}
	root, err := os.OpenRoot(workloadsDir)
	if err != nil {
		return nil, "", fmt.Errorf("settings.env_image: the workloads directory: %w", err)
	}
	defer root.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, from string) error {
		b, err := root.ReadFile(from)
		if err != nil {
			return fmt.Errorf("settings.env_image: packaging %s/%s for Fission: %w", workload, lang, err)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime})
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	if err := add(rt.module, path.Join("runtime", lang, rt.module)); err != nil {
		return nil, "", err
	}
	for _, f := range rt.runtime {
		if err := add(path.Join("runtime", lang, f), path.Join("runtime", lang, f)); err != nil {
			return nil, "", err
		}
	}
	dir := path.Join(workload, lang)
	var files []string
	err = fs.WalkDir(root.FS(), dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() {
			// actions/: the function's code for other platforms' own runtimes (OpenWhisk's, settings.code_file), not the workload's program.
			if p != dir && (name == "tests" || name == "actions" || name == "__pycache__" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if e.Type().IsRegular() && !strings.HasPrefix(name, "Dockerfile") && !strings.HasPrefix(name, ".") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("settings.env_image: packaging %s for Fission: %w", dir, err)
	}
	if !slices.Contains(files, path.Join(dir, rt.main)) {
		return nil, "", fmt.Errorf("settings.env_image: %s has no %s to package for Fission's environment (fission/environments %s)", dir, rt.main, rt.env)
	}
	for _, f := range files {
		if err := add(path.Join("workload", lang, strings.TrimPrefix(f, dir+"/")), f); err != nil {
			return nil, "", err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, "", fmt.Errorf("settings.env_image: packaging %s for Fission: %w", dir, err)
	}
	if buf.Len() > LiteralLimit {
		return nil, "", fmt.Errorf("settings.env_image: %s packaged for Fission is %d bytes, above Fission's literal package limit of %d (ArchiveLiteralSizeLimit)", dir, buf.Len(), LiteralLimit)
	}
	return buf.Bytes(), rt.entrypoint, nil
}

// GoSourcePackage packages a Go workload as the source of a Fission Go function, which Fission's Go
// builder (fission/environments go/builder/build.sh, in the environment's builder pod) builds into a
// plugin with go build -buildmode=plugin: a Go module (goModule) whose root package is the workload's
// main.go and faasbench's entry (goPluginEntry, without its build constraint), and fbrt at its path in the
// module; its entrypoint is Handler. Read through os.Root, as WorkloadPackage; refused above Fission's
// literal limit.
func GoSourcePackage(workloadsDir, workload string) ([]byte, string, error) {
	root, err := os.OpenRoot(workloadsDir)
	if err != nil {
		return nil, "", fmt.Errorf("settings.env_image: the workloads directory: %w", err)
	}
	defer root.Close()
	read := func(from string) ([]byte, error) {
		b, err := root.ReadFile(from)
		if err != nil {
			return nil, fmt.Errorf("settings.env_image: packaging %s/go for Fission: %w", workload, err)
		}
		return b, nil
	}
	files := map[string][]byte{"go.mod": []byte(goModule)}
	if files["main.go"], err = read(path.Join(workload, "go", "main.go")); err != nil {
		return nil, "", err
	}
	entry, err := read(goPluginEntry)
	if err != nil {
		return nil, "", err
	}
	first, rest, _ := bytes.Cut(entry, []byte("\n"))
	if !bytes.HasPrefix(first, []byte("//go:build ")) {
		return nil, "", fmt.Errorf("settings.env_image: %s does not begin with its build constraint", goPluginEntry)
	}
	files["fission_plugin.go"] = rest
	fbrt, err := fs.ReadDir(root.FS(), "runtime/go/fbrt")
	if err != nil {
		return nil, "", fmt.Errorf("settings.env_image: packaging %s/go for Fission: %w", workload, err)
	}
	for _, e := range fbrt {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			if files["workloads/runtime/go/fbrt/"+n], err = read("runtime/go/fbrt/" + n); err != nil {
				return nil, "", err
			}
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime})
		if err == nil {
			_, err = w.Write(files[name])
		}
		if err != nil {
			return nil, "", fmt.Errorf("settings.env_image: packaging %s/go for Fission: %w", workload, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, "", fmt.Errorf("settings.env_image: packaging %s/go for Fission: %w", workload, err)
	}
	if buf.Len() > LiteralLimit {
		return nil, "", fmt.Errorf("settings.env_image: %s/go packaged for Fission is %d bytes, above Fission's literal package limit of %d (ArchiveLiteralSizeLimit)", workload, buf.Len(), LiteralLimit)
	}
	return buf.Bytes(), goEntrypoint, nil
}
