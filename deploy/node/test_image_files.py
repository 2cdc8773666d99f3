"""image_files.py against OCI archives made here: the last layer's file, a whiteout, refusals."""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import tarfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import image_files  # noqa: E402


def _tar(entries: list[tuple[str, bytes | None, int]]) -> bytes:
    """A layer: (name, content, mode); content None is a directory."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name, data, mode in entries:
            ti = tarfile.TarInfo(name)
            ti.mode = mode
            if data is None:
                ti.type = tarfile.DIRTYPE
                t.addfile(ti)
            else:
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


def _image(path: str, layers: list[bytes]) -> None:
    blobs: dict[str, bytes] = {}

    def put(b: bytes) -> str:
        d = "sha256:" + hashlib.sha256(b).hexdigest()
        blobs[d] = b
        return d

    manifest = json.dumps({"layers": [{"digest": put(layer)} for layer in layers]}).encode()
    index = json.dumps({"manifests": [{"digest": put(manifest)}]}).encode()
    with tarfile.open(path, "w") as t:
        for name, data in [("index.json", index)] + [(f"blobs/sha256/{d[7:]}", b) for d, b in blobs.items()]:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))


def test_takes_the_last_layers_file(tmp_path):
    img = str(tmp_path / "i.tar")
    _image(img, [
        _tar([("usr", None, 0o755), ("usr/local/bin/processor", b"old", 0o755), ("opt/nuclio/handler.so", b"gone", 0o644)]),
        _tar([("./usr/local/bin/processor", b"new", 0o755), ("opt/nuclio/.wh.handler.so", b"", 0o644)]),
        _tar([("opt/nuclio/handler.so", b"plugin", 0o600), ("etc/passwd", b"x", 0o644)]),
    ])
    dest = tmp_path / "out"
    assert image_files.main([img, str(dest), "usr/local/bin/processor", "opt/nuclio/handler.so"]) == 0
    assert (dest / "usr/local/bin/processor").read_bytes() == b"new"
    assert os.stat(dest / "usr/local/bin/processor").st_mode & 0o777 == 0o755
    assert (dest / "opt/nuclio/handler.so").read_bytes() == b"plugin"
    assert not (dest / "etc").exists()  # only the named files


def test_a_whiteout_removes_a_file(tmp_path):
    img = str(tmp_path / "i.tar")
    _image(img, [_tar([("opt/nuclio/handler.so", b"p", 0o644)]), _tar([("opt/.wh.nuclio", b"", 0o644)])])
    with pytest.raises(LookupError, match="no regular file"):
        image_files.take(img, str(tmp_path / "o"), ["opt/nuclio/handler.so"])


@pytest.mark.parametrize("bad", ["../etc/passwd", "/etc/passwd", "opt/../../x"])
def test_refuses_a_path_leaving_the_root(tmp_path, bad, capsys):
    img = str(tmp_path / "i.tar")
    _image(img, [_tar([("etc/passwd", b"x", 0o644)])])
    assert image_files.main([img, str(tmp_path / "o"), bad]) == 2
    assert "not climbing out" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
