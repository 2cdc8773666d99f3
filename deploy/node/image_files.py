#!/usr/bin/env python3
"""deploy/node/image_files.py IMAGE.tar DEST PATH...: takes files out of an OCI image archive (what `faasbench workload
image -O` writes) into DEST/PATH, each as the image's last layer holding it leaves it (a whiteout removes it).
Only the named regular files are written, under DEST, with their modes; a name that is absolute or climbs out
(..), or that the image does not hold as a regular file, is refused (exit 2), and nothing else of the image
is unpacked. The Nuclio processor test runs the processor and the Go plugin of a function's image with it."""

from __future__ import annotations

import json
import os
import posixpath
import sys
import tarfile


def _clean(name: str) -> str:
    norm = posixpath.normpath(name[2:] if name.startswith("./") else name)
    if name.startswith("/") or norm.startswith("..") or norm in ("", "."):
        raise ValueError(f"{name}: a path inside the image, relative and not climbing out")
    return norm


def layers(archive: tarfile.TarFile) -> list[str]:
    """The image's layer blobs, lowest first (index.json -> manifest -> layers)."""
    def blob(digest: str) -> dict:
        algo, _, hexd = digest.partition(":")
        f = archive.extractfile(f"blobs/{algo}/{hexd}")
        if f is None:
            raise ValueError(f"{digest}: not in the archive")
        return json.load(f)

    index = json.load(archive.extractfile("index.json"))  # type: ignore[arg-type]
    manifests = index.get("manifests") or []
    if len(manifests) != 1:
        raise ValueError(f"index.json: {len(manifests)} manifests, want one image")
    manifest = blob(manifests[0]["digest"])
    return [layer["digest"] for layer in manifest["layers"]]


def take(image: str, dest: str, paths: list[str]) -> None:
    wanted = {_clean(p): p for p in paths}
    found: dict[str, tuple[str, tarfile.TarInfo] | None] = {}
    with tarfile.open(image) as archive:
        for digest in layers(archive):
            algo, _, hexd = digest.partition(":")
            f = archive.extractfile(f"blobs/{algo}/{hexd}")
            with tarfile.open(fileobj=f) as layer:  # plain or gzip: tarfile finds out
                for m in layer.getmembers():
                    name = _clean(m.name) if m.name not in ("", ".", "./") else "."
                    base = posixpath.basename(name)
                    if base.startswith(".wh."):
                        gone = posixpath.join(posixpath.dirname(name), base[len(".wh."):])
                        for w in wanted:
                            if w == gone or w.startswith(gone + "/"):
                                found[w] = None
                    elif name in wanted:
                        found[name] = (digest, m) if m.isreg() else None
        for name, orig in wanted.items():
            at = found.get(name)
            if at is None:
                raise LookupError(f"{orig}: the image holds no regular file there")
            digest, member = at
            algo, _, hexd = digest.partition(":")
            with tarfile.open(fileobj=archive.extractfile(f"blobs/{algo}/{hexd}")) as layer:
                src = layer.extractfile(member.name)
                assert src is not None
                out = os.path.join(dest, *name.split("/"))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with open(out, "wb") as w:
                    while chunk := src.read(1 << 20):
                        w.write(chunk)
                os.chmod(out, member.mode & 0o755)


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: image_files.py IMAGE.tar DEST PATH...", file=sys.stderr)
        return 2
    try:
        take(argv[0], argv[1], argv[2:])
    except (ValueError, LookupError) as e:
        print(f"image_files: {argv[0]}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
