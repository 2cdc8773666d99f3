"""fetch as a Kubeless Python function (settings.runtime: python3.11 with settings.code_file; the handler is
kubeless.main), the way seed 003 ran its http-workload on Kubeless: GETs a page of ?size bytes (after ?delay) from
the upstream (FB_UPSTREAM_URL), answers its size, or with ?reply=body the page itself, as main.py does behind
faasbench's runtime. Kubeless's 2019 runtime (kubeless.py) runs each call in a process forked for it and puts in
the event the request bottle is serving (event["extensions"]["request"]); what the handler returns travels back
through a multiprocessing queue, so the reply is a bottle.HTTPResponse carrying the function contract's headers
(docs/function-contract.md). The instance is the pod (its host name); a call is cold when it is the first its pod
served, known by a file in the container's /tmp that the first call makes. A bad query or upstream answers 500
with X-Fb-Error, as the contract says."""
import os
import re
import socket
import time
import urllib.parse
import urllib.request

MARKER = "/tmp/.faasbench-served"
DELAY = re.compile(r"^[0-9]+(\.[0-9]+)?(ms|s|us)$")
TIMEOUT_S = 120


def _query(event):
    """The call's query: from the request bottle serves (the runtime's event), as a plain dict."""
    req = (event.get("extensions") or {}).get("request")
    raw = req.environ.get("QUERY_STRING", "") if req is not None else ""
    return {k: v[-1] for k, v in urllib.parse.parse_qs(raw, keep_blank_values=True).items()}


def fetch(query, base):
    """The page's bytes, or the answer's text; ValueError for what the caller got wrong."""
    if not base:
        raise ValueError("FB_UPSTREAM_URL is not set (run faasbench upstream and pass its URL in the function's env)")
    try:
        size = int(query.get("size", "1024"))
    except ValueError:
        raise ValueError(f"size={query.get('size')!r}: want a whole number") from None
    if size < 0:
        raise ValueError(f"size={size}: want >= 0")
    reply = query.get("reply", "size")
    if reply not in ("size", "body"):
        raise ValueError(f"reply={reply!r}: want size or body")
    url = f"{base.rstrip('/')}/bytes/{size}"
    delay = query.get("delay", "")
    if delay:
        if not DELAY.match(delay):
            raise ValueError(f"delay={delay!r}: want a duration such as 250ms or 1s")
        url += f"?delay={delay}"
    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as resp:
        page = resp.read()
    if len(page) != size:
        raise ValueError(f"upstream sent {len(page)} bytes, want {size}")
    return page if reply == "body" else f"fetched {size} bytes".encode()


def main(event, context):
    begin = time.monotonic_ns()
    try:
        fd = os.open(MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
        cold = True
    except FileExistsError:
        cold = False
    import bottle  # the runtime's own: kubeless.py serves with it
    headers = {"Content-Type": "application/octet-stream", "X-Fb-Instance": socket.gethostname(),
               "X-Fb-Cold": "1" if cold else "0", "X-Fb-Handler-Begin-Ns": str(begin)}
    if cold:
        headers["X-Fb-Cold-Kind"] = "container"
    try:
        body, status = fetch(_query(event), os.environ.get("FB_UPSTREAM_URL", "")), 200
    except (ValueError, OSError) as e:
        body, status = f"fetch: {e}".encode(), 500
        headers["X-Fb-Error"] = str(e).replace("\r", " ").replace("\n", " ")[:200]
    headers["X-Fb-Handler-End-Ns"] = str(time.monotonic_ns())
    return bottle.HTTPResponse(body=body, status=status, headers=headers)
