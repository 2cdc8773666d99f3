"""fetch: GETs a page of ?size bytes after ?delay from the upstream (FB_UPSTREAM_URL), answers its size,
or with ?reply=body the page itself (seed 003's http-workload: "fetch and respond with" the payload)."""

import os
import re
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402

DELAY = re.compile(r"^[0-9]+(\.[0-9]+)?(ms|s|us)$")
TIMEOUT_S = 120


def handle(req: fbrt.Request) -> bytes:
    base = os.environ.get("FB_UPSTREAM_URL")
    if not base:
        raise fbrt.FunctionError("FB_UPSTREAM_URL is not set (run faasbench upstream and pass its URL in the function's env)")
    size = int(req.query.get("size", "1024"))
    if size < 0:
        raise fbrt.FunctionError(f"size={size}: want >= 0")
    reply = req.query.get("reply", "size")
    if reply not in ("size", "body"):
        raise fbrt.FunctionError(f"reply={reply!r}: want size or body")
    url = f"{base.rstrip('/')}/bytes/{size}"
    delay = req.query.get("delay", "")
    if delay:
        if not DELAY.match(delay):
            raise fbrt.FunctionError(f"delay={delay!r}: want a duration such as 250ms or 1s")
        url += f"?delay={delay}"
    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as resp:
        page = resp.read()
    n = len(page)
    if n != size:
        raise fbrt.FunctionError(f"upstream sent {n} bytes, want {size}")
    if reply == "body":
        return page
    return f"fetched {n} bytes".encode()


if __name__ == "__main__":
    fbrt.serve(handle)
