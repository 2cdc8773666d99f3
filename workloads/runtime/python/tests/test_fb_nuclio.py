"""Tests of faasbench's Nuclio Python handler with Nuclio's own SDK (nuclio-sdk from PyPI): events
decoded from msgpack as Nuclio's wrapper decodes what the processor sends, replies encoded as the
wrapper encodes them for the processor (nuclio_sdk.Response.from_entrypoint_output)."""

from __future__ import annotations

import base64
import json
import os
import sys

import msgpack  # scripts/setup.sh installs it and nuclio-sdk (PyPI)
import nuclio_sdk
import pytest
from nuclio_sdk.event import EventDeserializerKinds

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))

import fb_nuclio  # noqa: E402


def message(body: bytes, path: str = "/", query: dict | None = None, content_type: str = "application/octet-stream") -> bytes:
    """One event as the processor sends it to the Python wrapper (msgpack)."""
    return msgpack.packb({
        "body": body, "content_type": content_type, "trigger": {"kind": "http", "name": "http"},
        "fields": query or {}, "headers": {"Content-Type": content_type, "X-Test": "t"}, "id": "e1",
        "method": "POST", "path": path, "size": len(body), "timestamp": 1700000000, "url": "",
        "shard_id": 0, "num_shards": 0, "type": "", "type_version": "", "version": "",
    })


def context(monkeypatch, workload: str):
    monkeypatch.setenv("FB_MAIN", os.path.join(WORKLOADS, workload, "python", "main.py"))
    monkeypatch.setenv("FB_INSTANCE_ID", "nu-pod-1")
    ctx = nuclio_sdk.Context()
    fb_nuclio.init_context(ctx)
    return ctx


def reply(ctx, msg: bytes, raw: bool = False) -> dict:
    kind = EventDeserializerKinds.msgpack_raw if raw else EventDeserializerKinds.msgpack
    event = kind.value.deserialize(msgpack.unpackb(msg, raw=raw))
    return nuclio_sdk.Response.from_entrypoint_output(json.dumps, fb_nuclio.handler(ctx, event))


def body_of(out: dict) -> bytes:
    assert out["body_encoding"] == "base64"
    return base64.b64decode(out["body"])


def test_reverse_in_process_with_the_contract(monkeypatch):
    ctx = context(monkeypatch, "reverse")
    payload = bytes(range(256)) * 4
    first, second = reply(ctx, message(payload)), reply(ctx, message(b"abc"))
    assert body_of(first) == payload[::-1] and body_of(second) == b"cba"
    assert first["status_code"] == 200 and first["content_type"] == "application/octet-stream"
    h1, h2 = first["headers"], second["headers"]
    assert (h1["X-Fb-Cold"], h1["X-Fb-Cold-Kind"], h2["X-Fb-Cold"]) == ("1", "process", "0")
    assert "X-Fb-Cold-Kind" not in h2 and h1["X-Fb-Instance"] == "nu-pod-1"
    assert int(h1["X-Fb-Handler-End-Ns"]) >= int(h1["X-Fb-Handler-Begin-Ns"]) > 0


def test_query_from_fields_and_raw_strings(monkeypatch):
    ctx = context(monkeypatch, "prime")
    want = body_of(reply(ctx, message(b"", query={"n": "10"})))
    assert want.strip() == b"29"  # the 10th prime
    # With NUCLIO_PYTHON_DECODE_EVENT_STRINGS=disabled, names and values arrive as bytes.
    assert body_of(reply(ctx, message(b"", query={"n": "10"}), raw=True)) == want


def test_json_body_decoded_by_nuclio_is_encoded_again(monkeypatch):
    ctx = context(monkeypatch, "payload")
    doc = json.dumps({"a": [1, 2, 3], "b": "x"}, separators=(",", ":")).encode()
    event = EventDeserializerKinds.msgpack.value.deserialize(msgpack.unpackb(message(doc, content_type="application/json"), raw=False))
    assert isinstance(event.body, dict)  # what Nuclio's wrapper hands a handler
    out = nuclio_sdk.Response.from_entrypoint_output(json.dumps, fb_nuclio.handler(ctx, event))
    assert body_of(out) == f"received {len(doc)} bytes".encode()


def test_a_failing_handler_is_a_500_with_the_error(monkeypatch, tmp_path):
    main = tmp_path / "main.py"
    main.write_text("def handle(req):\n    raise ValueError('no ' + req.path)\n")
    monkeypatch.setenv("FB_MAIN", str(main))
    ctx = nuclio_sdk.Context()
    fb_nuclio.init_context(ctx)
    out = reply(ctx, message(b"x", path="/p"))
    assert out["status_code"] == 500 and out["headers"]["X-Fb-Error"] == "ValueError: no /p"


def test_init_context_names_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.delenv("FB_MAIN", raising=False)
    with pytest.raises(RuntimeError, match="FB_MAIN"):
        fb_nuclio.init_context(nuclio_sdk.Context())
    main = tmp_path / "main.py"
    main.write_text("x = 1\n")
    monkeypatch.setenv("FB_MAIN", str(main))
    with pytest.raises(ImportError, match="no handle"):
        fb_nuclio.init_context(nuclio_sdk.Context())
