package imagebuild

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// epoch is every file's and the image's time: the same inputs give the same digests.
var epoch = time.Unix(0, 0).UTC()

// Descriptor is an OCI content descriptor.
type Descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Written says what WriteArchive wrote.
type Written struct {
	Name     string       // the image's full name (io.containerd.image.name)
	Manifest Descriptor   // the manifest's descriptor
	Layers   []Descriptor // bottom first
	Config   []byte       // the image configuration JSON
}

// Name normalises a local tag the way containerd's CRI does (docker.io/library/ for one-part names,
// docker.io/ for two-part names), so that a pod's image reference finds it.
func Name(tag string) string {
	repo := tag
	if i := strings.LastIndex(tag, ":"); i > strings.LastIndex(tag, "/") {
		repo = tag[:i]
	} else {
		tag += ":latest"
	}
	first, _, hasSlash := strings.Cut(repo, "/")
	switch {
	case !hasSlash:
		return "docker.io/library/" + tag
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		return "docker.io/" + tag
	}
	return tag
}

// WriteArchive writes the image as an OCI image layout in a tar stream, named name: what
// `ctr images import` reads. Layers are uncompressed tars (a local import gains nothing from gzip).
func WriteArchive(w io.Writer, im *Image, name string) (Written, error) {
	out := Written{Name: Name(name)}
	tw := tar.NewWriter(w)
	tmp, err := os.MkdirTemp(im.work, "layers-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(tmp)
	var diffIDs []string
	var history []map[string]any
	for i, l := range im.Layers {
		p := filepath.Join(tmp, fmt.Sprintf("layer-%d.tar", i))
		d, err := writeLayer(p, l)
		if err != nil {
			return out, fmt.Errorf("layer %d (%s): %w", i, l.Note, err)
		}
		if err := addBlob(tw, p, d); err != nil {
			return out, err
		}
		out.Layers = append(out.Layers, d)
		diffIDs = append(diffIDs, d.Digest)
		history = append(history, map[string]any{"created": epoch, "created_by": l.Note})
	}
	cfg := map[string]any{
		"created": epoch, "architecture": "amd64", "os": "linux", "config": im.Config,
		"rootfs": map[string]any{"type": "layers", "diff_ids": diffIDs}, "history": history,
	}
	if out.Config, err = json.Marshal(cfg); err != nil {
		return out, err
	}
	cfgDesc := jsonBlob(tw, "application/vnd.oci.image.config.v1+json", out.Config)
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": cfgDesc, "layers": out.Layers,
	})
	out.Manifest = jsonBlob(tw, "application/vnd.oci.image.manifest.v1+json", manifest)
	tag := out.Name[strings.LastIndex(out.Name, ":")+1:]
	out.Manifest.Annotations = map[string]string{"io.containerd.image.name": out.Name, "org.opencontainers.image.ref.name": tag}
	index, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": []Descriptor{out.Manifest}})
	if err := addFile(tw, "oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return out, err
	}
	if err := addFile(tw, "index.json", index); err != nil {
		return out, err
	}
	return out, tw.Close()
}

func jsonBlob(tw *tar.Writer, mediaType string, b []byte) Descriptor {
	sum := sha256.Sum256(b)
	d := Descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(b))}
	_ = addFile(tw, "blobs/sha256/"+hex.EncodeToString(sum[:]), b)
	return d
}

func addFile(tw *tar.Writer, name string, b []byte) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: epoch, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := tw.Write(b)
	return err
}

func addBlob(tw *tar.Writer, path string, d Descriptor) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := tw.WriteHeader(&tar.Header{Name: "blobs/sha256/" + strings.TrimPrefix(d.Digest, "sha256:"), Mode: 0o644, Size: d.Size, ModTime: epoch, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

type hashingWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (h *hashingWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// writeLayer tars dir into path, in sorted order, owners and modes as on disk, times at epoch.
// Device nodes are left out (the runtime gives a container its /dev); in an overlay upper directory a
// 0/0 character device is a deletion and becomes a ".wh." file, and an opaque directory gets
// ".wh..wh..opq", as the OCI layer format says.
func writeLayer(path string, l Layer) (Descriptor, error) {
	f, err := os.Create(path)
	if err != nil {
		return Descriptor{}, err
	}
	defer f.Close()
	hw := &hashingWriter{w: f, h: sha256.New()}
	tw := tar.NewWriter(hw)
	var names []string
	err = filepath.WalkDir(l.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != l.Dir {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return Descriptor{}, err
	}
	sort.Strings(names)
	for _, p := range names {
		rel, _ := filepath.Rel(l.Dir, p)
		if err := addEntry(tw, p, filepath.ToSlash(rel), l.Upper); err != nil {
			return Descriptor{}, fmt.Errorf("%s: %w", rel, err)
		}
	}
	if err := tw.Close(); err != nil {
		return Descriptor{}, err
	}
	return Descriptor{MediaType: "application/vnd.oci.image.layer.v1.tar", Digest: "sha256:" + hex.EncodeToString(hw.h.Sum(nil)), Size: hw.n}, nil
}

func addEntry(tw *tar.Writer, p, rel string, upper bool) error {
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, _ := info.Sys().(*syscall.Stat_t)
	mode := info.Mode()
	if mode&fs.ModeCharDevice != 0 || mode&fs.ModeDevice != 0 {
		if upper && st != nil && st.Rdev == 0 {
			dir, base := filepath.Split(rel)
			return tw.WriteHeader(&tar.Header{Name: dir + ".wh." + base, Mode: 0o600, ModTime: epoch, Typeflag: tar.TypeReg})
		}
		return nil
	}
	if mode&(fs.ModeSocket|fs.ModeNamedPipe) != 0 {
		return nil
	}
	link := ""
	if mode&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(p); err != nil {
			return err
		}
	}
	h, err := tar.FileInfoHeader(info, link)
	if err != nil {
		return err
	}
	h.Name, h.ModTime, h.AccessTime, h.ChangeTime, h.Format = rel, epoch, time.Time{}, time.Time{}, tar.FormatPAX
	h.Uname, h.Gname = "", ""
	if st != nil {
		h.Uid, h.Gid = int(st.Uid), int(st.Gid)
	}
	if info.IsDir() {
		h.Name += "/"
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if info.IsDir() && upper && isOpaque(p) {
		return tw.WriteHeader(&tar.Header{Name: rel + "/.wh..wh..opq", Mode: 0o600, ModTime: epoch, Typeflag: tar.TypeReg})
	}
	if mode.IsRegular() {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	}
	return nil
}

func isOpaque(dir string) bool {
	buf := make([]byte, 4)
	for _, attr := range []string{"trusted.overlay.opaque", "user.overlay.opaque"} {
		if n, err := syscall.Getxattr(dir, attr, buf); err == nil && n > 0 && buf[0] == 'y' {
			return true
		}
	}
	return false
}
