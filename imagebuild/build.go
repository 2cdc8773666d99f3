package imagebuild

import (
	"context"
	"fmt"
	"github.com/faasbench/faasbench/internal/fileutil"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Builder builds images from Dockerfiles. It runs as root (RUN needs mounts and chroot).
type Builder struct {
	// Context is the build context: COPY sources are resolved in it and may not leave it.
	Context string
	// Cache holds the bases' root file systems (made once) and each build's scratch space.
	Cache string
	// Log receives what RUN steps and mmdebstrap print.
	Log io.Writer
	// Extra maps FROM references to bases beside (and before) Bases, e.g. DirBase's.
	Extra map[string]Base
}

// Image is a built image: its layers (directories, bottom first) and its configuration.
type Image struct {
	From   string
	Base   Base
	Layers []Layer
	Config ImageConfig
	work   string
}

// Layer is a directory whose tree is one image layer. Upper layers hold overlay whiteouts.
type Layer struct {
	Dir   string
	Upper bool   // an overlay upper directory (whiteouts to convert)
	Note  string // what it is, for the image's history
}

// ImageConfig is the part of the OCI image configuration a Dockerfile sets.
type ImageConfig struct {
	User         string              `json:"User,omitempty"`
	ExposedPorts map[string]struct{} `json:"ExposedPorts,omitempty"`
	Env          []string            `json:"Env,omitempty"`
	Entrypoint   []string            `json:"Entrypoint,omitempty"`
	Cmd          []string            `json:"Cmd,omitempty"`
	WorkingDir   string              `json:"WorkingDir,omitempty"`
	Labels       map[string]string   `json:"Labels,omitempty"`
}

// Close removes the build's scratch space (the image's upper layer lives there).
func (im *Image) Close() error {
	if im == nil || im.work == "" {
		return nil
	}
	return os.RemoveAll(im.work)
}

const defaultPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

type stage struct {
	Stage
	base  Base
	lower string
	dir   string // upper, work, merged live here
	cfg   ImageConfig
}

func (s *stage) upper() string { return filepath.Join(s.dir, "upper") }

// Build builds the Dockerfile's last stage. The caller closes the image.
func (b *Builder) Build(ctx context.Context, dockerfile string) (*Image, error) {
	stages, err := Parse(dockerfile)
	if err != nil {
		return nil, err
	}
	if b.Log == nil {
		b.Log = io.Discard
	}
	ctxDir, err := filepath.Abs(b.Context)
	if err != nil {
		return nil, err
	}
	b.Context = ctxDir
	if err := os.MkdirAll(b.Cache, 0o700); err != nil {
		return nil, fmt.Errorf("cache %s: %w", b.Cache, err)
	}
	work, err := os.MkdirTemp(b.Cache, "build-")
	if err != nil {
		return nil, err
	}
	im := &Image{work: work}
	built := map[string]*stage{}
	var last *stage
	for i, st := range stages {
		s, err := b.stage(ctx, st, work, built)
		if err != nil {
			_ = im.Close()
			return nil, fmt.Errorf("stage %d (FROM %s, line %d): %w", i, st.From, st.Line, err)
		}
		built[fmt.Sprint(i)] = s
		if st.Name != "" {
			built[st.Name] = s
		}
		last = s
	}
	if last.base.Kind == BaseHost {
		_ = im.Close()
		return nil, fmt.Errorf("line %d: the last stage is FROM %s, which stands for the build machine itself (build stages only): it cannot be an image", last.Line, last.From)
	}
	im.From, im.Base, im.Config = last.From, last.base, last.cfg
	if last.base.Kind != BaseScratch {
		im.Layers = append(im.Layers, Layer{Dir: last.lower, Note: "FROM " + last.From + " (" + string(last.base.Kind) + ")"})
	}
	im.Layers = append(im.Layers, Layer{Dir: last.upper(), Upper: true, Note: "the Dockerfile's instructions"})
	return im, nil
}

func (b *Builder) stage(ctx context.Context, st Stage, work string, built map[string]*stage) (*stage, error) {
	if _, ok := built[strings.ToLower(st.From)]; ok {
		return nil, fmt.Errorf("FROM an earlier stage is not supported yet; copy from it with COPY --from instead")
	}
	base, ok := b.Extra[st.From]
	if !ok {
		base, ok = Bases[st.From]
	}
	if !ok {
		known := slices.Concat(slices.Collect(maps.Keys(Bases)), slices.Collect(maps.Keys(b.Extra)))
		slices.Sort(known)
		return nil, fmt.Errorf("FROM %s: no local base stands for this image (known: %s; see imagebuild/base.go)", st.From, strings.Join(known, ", "))
	}
	lower, err := base.rootfs(ctx, b.Cache, b.Log)
	if err != nil {
		return nil, err
	}
	s := &stage{Stage: st, base: base, lower: lower, dir: filepath.Join(work, fmt.Sprintf("stage-%d", st.Index))}
	for _, d := range []string{"upper", "work", "merged"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	s.cfg = ImageConfig{User: base.User, WorkingDir: base.WorkDir, Env: append([]string{defaultPath}, base.Env...)}
	if base.Kind == BaseHost {
		s.cfg.Env = setEnv(s.cfg.Env, hostGoPath())
	}
	for _, in := range st.Steps {
		if err := b.apply(ctx, s, in, built); err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", in.Line, in.Cmd, err)
		}
	}
	return s, nil
}

func (b *Builder) apply(ctx context.Context, s *stage, in Instruction, built map[string]*stage) error {
	switch in.Cmd {
	case "WORKDIR":
		s.cfg.WorkingDir = s.resolve(in.Shell)
		return s.mkdirs(s.cfg.WorkingDir)
	case "ENV":
		pairs, err := envPairs(in)
		if err != nil {
			return err
		}
		for _, kv := range pairs {
			s.cfg.Env = setEnv(s.cfg.Env, kv[0]+"="+kv[1])
		}
	case "USER":
		s.cfg.User = in.Args[0]
	case "EXPOSE":
		if s.cfg.ExposedPorts == nil {
			s.cfg.ExposedPorts = map[string]struct{}{}
		}
		for _, p := range in.Args {
			if !strings.Contains(p, "/") {
				p += "/tcp"
			}
			s.cfg.ExposedPorts[p] = struct{}{}
		}
	case "LABEL":
		if s.cfg.Labels == nil {
			s.cfg.Labels = map[string]string{}
		}
		for _, w := range shellWords(in.Shell) {
			k, v, _ := strings.Cut(w, "=")
			s.cfg.Labels[k] = v
		}
	case "CMD":
		s.cfg.Cmd = execForm(in)
	case "ENTRYPOINT":
		s.cfg.Entrypoint = execForm(in)
	case "COPY":
		return b.copy(s, in, built)
	case "RUN":
		return b.run(ctx, s, execForm(in))
	}
	return nil
}

// resolve makes p absolute against the stage's working directory.
func (s *stage) resolve(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	wd := s.cfg.WorkingDir
	if wd == "" {
		wd = "/"
	}
	return path.Join(wd, p)
}

func execForm(in Instruction) []string {
	if in.JSON {
		return in.Args
	}
	return []string{"/bin/sh", "-c", in.Shell}
}

func setEnv(env []string, kv string) []string {
	k, _, _ := strings.Cut(kv, "=")
	for i, e := range env {
		if strings.HasPrefix(e, k+"=") {
			env[i] = kv
			return env
		}
	}
	return append(env, kv)
}

// hostGoPath puts the build machine's Go toolchain first on PATH, as golang images do.
func hostGoPath() string {
	p := strings.TrimPrefix(defaultPath, "PATH=")
	if g, err := exec.LookPath("go"); err == nil {
		if r, err := filepath.EvalSymlinks(g); err == nil {
			g = r
		}
		p = filepath.Dir(g) + ":" + p
	}
	return "PATH=" + p
}

// copy applies COPY [--from=stage] SRC... DST. Sources from the context may not leave it (symlinks
// included); files are owned by root as Docker's COPY makes them; --chown is refused.
func (b *Builder) copy(s *stage, in Instruction, built map[string]*stage) error {
	if _, ok := in.Flags["chown"]; ok {
		return fmt.Errorf("--chown is not supported")
	}
	args := in.Args
	if len(args) < 2 {
		return fmt.Errorf("needs a source and a destination")
	}
	srcs, dst := args[:len(args)-1], args[len(args)-1]
	dstDir := strings.HasSuffix(dst, "/") || len(srcs) > 1
	dst = s.resolve(dst)
	var from *stage
	if name, ok := in.Flags["from"]; ok {
		if from = built[strings.ToLower(name)]; from == nil {
			return fmt.Errorf("--from=%s: no earlier stage of that name", name)
		}
	}
	for _, src := range srcs {
		var abs string
		var err error
		if from != nil {
			abs, err = from.lookup(src)
		} else {
			abs, err = within(b.Context, src)
		}
		if err != nil {
			return err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("source %s: %w", src, err)
		}
		target := dst
		if !st.IsDir() && dstDir {
			target = path.Join(dst, path.Base(src))
		}
		root := b.Context
		if from != nil {
			root = ""
		}
		if target, err = s.destPath(target); err != nil {
			return err
		}
		if err := s.mkdirs(path.Dir(target)); err != nil {
			return err
		}
		if err := copyTree(abs, filepath.Join(s.upper(), target), root); err != nil {
			return fmt.Errorf("%s -> %s: %w", src, target, err)
		}
	}
	return nil
}

// destPath is where a copy to p (an absolute path in the image) lands: p with each directory on the way
// resolved through the symbolic links of the stage's root filesystem (its changes, then its base), as
// Docker resolves a COPY destination. A base whose /lib is a link to usr/lib (Debian's merged /usr) gets
// COPY x /lib/x at /usr/lib/x: writing lib/x into the layer shadowed the link with a directory holding only
// x, and every dynamically linked program of the image then failed (its loader is under /lib; found with
// OpenWhisk's Python runtime, whose launcher goes to /lib). The last component is not resolved; a link
// cannot lead above /; at most 40 links.
func (s *stage) destPath(p string) (string, error) {
	dir, file := path.Split(path.Clean(p))
	parts := strings.Split(strings.Trim(dir, "/"), "/")
	cur := "/"
	for hops := 0; len(parts) > 0; {
		part := parts[0]
		parts = parts[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, part)
		target, ok := s.readlink(next)
		if !ok {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return "", fmt.Errorf("destination %s: more than 40 symbolic links on the way", p)
		}
		if path.IsAbs(target) {
			cur = "/"
		}
		parts = append(strings.Split(strings.Trim(target, "/"), "/"), parts...)
	}
	return path.Join(cur, file), nil
}

// mkdirs makes the directory p (absolute in the image) and those above it in the stage's changes, each
// with the mode it has in the base where the base has it (as Docker, whose COPY and WORKDIR leave an
// existing directory as it is), else 0755. Made 0755, an existing directory of the base lost its mode in
// the layer: COPY x /tmp/x gave the image a /tmp of 0755, not Debian's 1777, and Kubeless's Python
// runtime, which runs as user 1000, could not write there (found on the real node).
func (s *stage) mkdirs(p string) error {
	cur := s.upper()
	for _, part := range strings.Split(strings.Trim(path.Clean(p), "/"), "/") {
		if part == "" {
			continue
		}
		rel := strings.TrimPrefix(filepath.Join(strings.TrimPrefix(cur, s.upper()), part), string(filepath.Separator))
		cur = filepath.Join(cur, part)
		if st, err := os.Lstat(cur); err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s: not a directory in the layer", "/"+filepath.ToSlash(rel))
			}
			continue
		}
		mode := fs.FileMode(0o755)
		if s.lower != "" {
			if st, err := os.Stat(filepath.Join(s.lower, rel)); err == nil && st.IsDir() {
				mode = st.Mode() & (fs.ModePerm | fs.ModeSticky | fs.ModeSetgid | fs.ModeSetuid)
			}
		}
		if err := os.Mkdir(cur, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(cur, mode); err != nil {
			return err
		}
	}
	return nil
}

// readlink is the target of p when the stage's root filesystem holds a symbolic link there: its changes
// first (a file or a deletion there hides the base), then its base.
func (s *stage) readlink(p string) (string, bool) {
	for _, d := range []string{s.upper(), s.lower} {
		if d == "" {
			continue
		}
		c := filepath.Join(d, filepath.FromSlash(p))
		st, err := os.Lstat(c)
		if err != nil {
			continue
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return "", false
		}
		t, err := os.Readlink(c)
		return t, err == nil
	}
	return "", false
}

// within resolves rel inside root and refuses what leaves it, following symlinks.
func within(root, rel string) (string, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("source %s: %w", rel, err)
	}
	r, err := filepath.Rel(root, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("source %s: leaves the build context %s", rel, root)
	}
	return real, nil
}

// lookup finds p in a built stage: its changes first, then its base.
func (s *stage) lookup(p string) (string, error) {
	p = s.resolve(p)
	for _, d := range []string{s.upper(), s.lower} {
		c := filepath.Join(d, filepath.FromSlash(p))
		if st, err := os.Lstat(c); err == nil && st.Mode()&fs.ModeCharDevice == 0 {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s: not in stage %d", p, s.Index)
}

// copyTree copies a file or a directory's contents to dst, owned by root, modes kept. A symlink in
// the context that points outside root (when root is set) is refused.
func copyTree(src, dst, root string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			return os.Chmod(out, info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if root != "" {
				if _, err := within(root, mustRel(root, p)); err != nil {
					return err
				}
			}
			return os.Symlink(t, out)
		case info.Mode().IsRegular():
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return fileutil.Copy(p, out, info.Mode().Perm())
		default:
			return fmt.Errorf("%s: not a file, directory or symlink", p)
		}
	})
}

func mustRel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return r
}
