"""faasbench's handler for Nuclio's Python runtime (handler ``fb_nuclio:handler``).

It runs a Python workload's ``handle`` inside the Nuclio processor's Python worker, as a Nuclio
Python function runs: no server of its own, no extra hop. FB_MAIN names the workload's main.py,
loaded once per worker process in ``init_context``. Every reply carries the function contract's
headers (docs/function-contract.md; fbrt.invoke): the cold flag is per worker process (each of the
HTTP trigger's maxWorkers is one), the instance is the pod's host name and the process id.

What Nuclio hands over (nuclio_sdk.Event, filled by Nuclio's wrapper from the HTTP trigger's event:
pkg/processor/trigger/http/event.go): ``path`` without the query, the query arguments as
``fields``, ``headers``, and the body as bytes, except that a body sent as application/json
arrives decoded (a dict or list) and is encoded again here. With
NUCLIO_PYTHON_DECODE_EVENT_STRINGS=disabled the strings arrive as bytes; both are taken.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fbrt  # noqa: E402


def _text(v: object) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, (bytes, bytearray)) else str(v)


def _body(body: object) -> bytes:
    if body is None:
        return b""
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    if isinstance(body, str):
        return body.encode()
    return json.dumps(body, separators=(",", ":")).encode()


def init_context(context) -> None:  # noqa: ANN001 - nuclio_sdk.Context
    """Nuclio calls this once per worker before its first event."""
    path = os.environ.get("FB_MAIN", "")
    if not path:
        raise RuntimeError("FB_MAIN is not set: it names the workload's main.py")
    context.user_data.fb_handle = fbrt.load_handler(path, "FB_MAIN")
    context.user_data.fb_cold = fbrt.ColdFlag()
    context.user_data.fb_instance = fbrt.instance_id()


def handler(context, event):  # noqa: ANN001, ANN201 - nuclio_sdk.Context, Event -> Response
    """One event: the workload's reply with the contract's headers, as a nuclio_sdk.Response."""
    ud = context.user_data
    req = fbrt.Request(
        method=_text(event.method or "POST"),
        path=_text(event.path or "/"),
        query={_text(k): _text(v) for k, v in (event.fields or {}).items()},
        headers={_text(k): _text(v) for k, v in (event.headers or {}).items()},
        body=_body(event.body),
    )
    resp, extra = fbrt.invoke(ud.fb_handle, req, ud.fb_cold.take(), ud.fb_instance)
    headers = {**resp.headers, **extra}
    content_type = "application/octet-stream"
    for k in list(headers):
        if k.lower() == "content-type":
            content_type = headers.pop(k)
    return context.Response(body=resp.body, headers=headers, content_type=content_type, status_code=resp.status)
