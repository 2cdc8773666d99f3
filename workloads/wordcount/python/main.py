"""wordcount: counts the words of a file on shared storage (seed 002's I/O test; mapreduce's mapper).

?file=NAME   a file under FB_DATA_DIR (a directory) or FB_DATA_URL (an HTTP base URL)
?files=A,B   several files (at most 1000), counted together: a mapper given several files
?by=         total (default): {"words": N, "distinct": M}; word: counts per word; letter: per first letter
?fail=P      fail with probability P (0..1): fault injection for mapreduce's retries
"""

import json
import os
import random
import re
import sys
import urllib.parse
import urllib.request
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402

WORD = re.compile(rb"[A-Za-z0-9']+")
MAX_FILES = 1000
NAME = re.compile(r"^[A-Za-z0-9._-][A-Za-z0-9._/-]*$")


def read(name: str) -> bytes:
    if not NAME.match(name) or ".." in name.split("/"):
        raise fbrt.FunctionError(f"file={name!r}: want a relative name without '..'")
    d = os.environ.get("FB_DATA_DIR")
    if d:
        with open(os.path.join(d, name), "rb") as f:
            return f.read()
    base = os.environ.get("FB_DATA_URL")
    if base:
        with urllib.request.urlopen(f"{base.rstrip('/')}/{urllib.parse.quote(name)}", timeout=120) as resp:
            return resp.read()
    raise fbrt.FunctionError("neither FB_DATA_DIR nor FB_DATA_URL is set: where is the shared storage?")


def count(data: bytes, by: str) -> dict:
    words = [w.lower().decode() for w in WORD.findall(data)]
    if by == "total":
        return {"words": len(words), "distinct": len(set(words))}
    if by == "word":
        return dict(Counter(words))
    if by == "letter":
        return dict(Counter(w[0] for w in words))
    raise fbrt.FunctionError(f"by={by!r}: want total, word or letter")


def handle(req: fbrt.Request) -> fbrt.Response:
    fail = float(req.query.get("fail", "0"))
    if random.random() < fail:
        raise fbrt.FunctionError(f"injected failure (fail={fail})")
    names = [n for n in req.query.get("files", "").split(",") if n] or [req.query.get("file", "")]
    if not names[0]:
        raise fbrt.FunctionError("?file= or ?files= is required")
    if len(names) > MAX_FILES:
        raise fbrt.FunctionError(f"files: {len(names)} names, at most {MAX_FILES}")
    out = count(b"\n".join(read(n) for n in names), req.query.get("by", "total"))
    return fbrt.Response(json.dumps(out, sort_keys=True).encode(), headers={"Content-Type": "application/json"})


if __name__ == "__main__":
    fbrt.serve(handle)
