"""faasbench function runtime for Python: serves one handler under the function contract.

The contract (docs/function-contract.md): HTTP in, HTTP out, and on every reply the headers
X-Fb-Instance, X-Fb-Cold (1 only on the first request this process serves), X-Fb-Cold-Kind,
X-Fb-Handler-Begin-Ns and X-Fb-Handler-End-Ns (CLOCK_MONOTONIC ns of this host). A handler that
raises is answered with 500 and X-Fb-Error. GET /_fb/health answers 200 and is never counted as
the function's first request.

Environment: FB_HOST (default 127.0.0.1), FB_PORT (default 8080; 0 picks a free port),
FB_INSTANCE_ID (default host-pid), FB_READY_FD (a file descriptor on which the bound port is
written once the socket listens: how the local platform learns the instance is ready),
FB_WORKERS (pre-fork that many sync worker processes sharing the listening socket, like gunicorn;
FB_WORKERS=1 is one sync worker, unlike no FB_WORKERS, a threaded server; each
worker's first request is its own cold start), FB_MODE=stdio (fork mode: serve one invocation,
body on stdin, reply on stdout, then exit; Http_Method, Http_Path and Http_Query describe the request,
as OpenFaaS's watchdogs describe it to a process they fork).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from typing import Callable, Union
from urllib.parse import parse_qs, urlsplit

HEALTH_PATH = "/_fb/health"


@dataclass
class Request:
    """One invocation: method, path, query (first value per key), headers and raw body."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes


@dataclass
class Response:
    """A handler's reply."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Union[Response, bytes, str]]


class FunctionError(Exception):
    """Raised by a handler to report that the function failed (answered as 500 + X-Fb-Error)."""


def instance_id() -> str:
    return os.environ.get("FB_INSTANCE_ID") or f"{socket.gethostname()}-{os.getpid()}"


class ColdFlag:
    """True exactly once per process: for the first counted request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._first = True

    def take(self) -> bool:
        with self._lock:
            first, self._first = self._first, False
            return first


def load_handler(path: str, what: str = "main.py") -> Handler:
    """The ``handle`` of the workload module at path (a workload's main.py), loaded under its own name
    as the platforms' runtimes load it (Nuclio's Python worker, Fission's Python environment); errors
    name what gave the path."""
    spec = importlib.util.spec_from_file_location("fb_workload_main", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{what}={path}: not a Python module")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    handle = getattr(mod, "handle", None)
    if not callable(handle):
        raise ImportError(f"{what}={path}: no handle(req) function")
    return handle


def _normalise(result: Union[Response, bytes, str]) -> Response:
    if isinstance(result, Response):
        return result
    if isinstance(result, str):
        return Response(body=result.encode())
    if isinstance(result, (bytes, bytearray, memoryview)):
        return Response(body=bytes(result))
    raise TypeError(f"handler returned {type(result).__name__}, want Response, bytes or str")


def invoke(handler: Handler, req: Request, is_cold: bool, inst: str) -> tuple[Response, dict[str, str]]:
    """Runs handler on req under the contract: its reply (500 with the error when it raised) and the
    contract's headers (instance, cold flag and kind, handler begin/end, error)."""
    begin = time.monotonic_ns()
    error = ""
    try:
        resp = _normalise(handler(req))
    except Exception as exc:  # noqa: BLE001 - any failure is the function's error
        error = f"{type(exc).__name__}: {exc}"
        resp = Response(body=error.encode(), status=500)
    end = time.monotonic_ns()
    extra = {
        "X-Fb-Instance": inst,
        "X-Fb-Cold": "1" if is_cold else "0",
        "X-Fb-Handler-Begin-Ns": str(begin),
        "X-Fb-Handler-End-Ns": str(end),
    }
    if is_cold:
        extra["X-Fb-Cold-Kind"] = "process"
    if error:
        extra["X-Fb-Error"] = error.replace("\n", " ")[:200]
    return resp, extra


def read_body(headers, rfile) -> bytes:
    """Reads a request's body: Content-Length bytes, or a chunked body (RFC 9112 section 7.1: chunk
    sizes in hex, extensions and trailers skipped). A proxy in front of the function may send
    either: OpenFaaS's of-watchdog forwards a body it did not buffer chunked, which this runtime read
    as empty before 2026-11-27 (the payload function answered "received 0 bytes" on the real node).
    A malformed body raises ValueError."""
    te = [c.strip().lower() for c in (headers.get("Transfer-Encoding") or "").split(",") if c.strip()]
    if te:
        if te[-1] != "chunked":
            raise ValueError(f"Transfer-Encoding {headers.get('Transfer-Encoding')!r}: only chunked is understood")
        out = bytearray()
        while True:
            line = rfile.readline(1024)
            if not line.endswith(b"\n"):
                raise ValueError("chunked body: a chunk size line is missing or too long")
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise ValueError(f"chunked body: {line[:40]!r} is not a chunk size") from None
            if size < 0:
                raise ValueError("chunked body: a negative chunk size")
            if size == 0:
                while rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return bytes(out)
            chunk = rfile.read(size)
            if len(chunk) != size or rfile.readline(3) not in (b"\r\n", b"\n"):
                raise ValueError("chunked body: a chunk is shorter than its size")
            out += chunk
    length = int(headers.get("Content-Length") or 0)
    return rfile.read(length) if length > 0 else b""


def make_server(handler: Handler, host: str | None = None, port: int | None = None, sync_worker: bool = False) -> HTTPServer:
    """Returns a bound server for handler (not yet serving).

    sync_worker: serve one request at a time and close every connection after its reply (as
    gunicorn's sync workers do), so that requests spread over worker processes sharing the socket.
    """
    host = host if host is not None else os.environ.get("FB_HOST", "127.0.0.1")
    port = port if port is not None else int(os.environ.get("FB_PORT", "8080"))
    inst = instance_id()
    cold = ColdFlag()

    class _H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in two writes: without TCP_NODELAY, Nagle's
        # algorithm and the client's delayed ACK add ~40 ms to every reply.
        disable_nagle_algorithm = True

        def _serve(self) -> None:
            try:
                body = read_body(self.headers, self.rfile)
            except ValueError as e:
                self.close_connection = True
                self._reply(Response(str(e).encode(), 400), {"X-Fb-Instance": inst})
                return
            if self.path == HEALTH_PATH:
                self._reply(Response(b"ok"), {"X-Fb-Instance": inst})
                return
            parts = urlsplit(self.path)
            req = Request(
                method=self.command,
                path=parts.path,
                query={k: v[0] for k, v in parse_qs(parts.query).items()},
                headers={k: v for k, v in self.headers.items()},
                body=body,
            )
            resp, extra = invoke(handler, req, cold.take(), inst)
            extra["X-Fb-Worker"] = str(os.getpid())
            self._reply(resp, extra)

        def _reply(self, resp: Response, extra: dict[str, str]) -> None:
            self.send_response(resp.status)
            for k, v in {**resp.headers, **extra}.items():
                self.send_header(k, v)
            if sync_worker:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.send_header("Content-Length", str(len(resp.body)))
            self.end_headers()
            self.wfile.write(resp.body)

        do_GET = do_POST = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            pass

    class _Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 1024

    class _SyncServer(HTTPServer):
        request_queue_size = 1024

    return (_SyncServer if sync_worker else _Server)((host, port), _H)


def announce(port: int) -> None:
    """Tells whoever started us that we listen on port (FB_READY_FD), or says so on stderr."""
    fd = os.environ.get("FB_READY_FD")
    if fd:
        os.write(int(fd), f"{port}\n".encode())
        os.close(int(fd))
    else:
        print(f"listening on port {port}", file=sys.stderr, flush=True)


def serve_stdio(handler: Handler) -> int:
    """Fork mode: one invocation from stdin to stdout. Returns the exit status."""
    parts = os.environ.get("Http_Query", "")
    req = Request(
        method=os.environ.get("Http_Method", "POST"),
        path=os.environ.get("Http_Path", "/"),
        query={k: v[0] for k, v in parse_qs(parts).items()},
        headers={},
        body=sys.stdin.buffer.read(),
    )
    try:
        resp = _normalise(handler(req))
    except Exception as exc:  # noqa: BLE001 - any failure is the function's error
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    sys.stdout.buffer.write(resp.body)
    sys.stdout.buffer.flush()
    return 0


def _die_with_parent() -> None:
    """Asks the kernel to kill this worker when its parent dies (Linux prctl)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def load_secrets() -> None:
    """Reads the secrets a platform mounted as files (FB_SECRETS_DIR, a file per variable, as OpenFaaS mounts
    them under /var/openfaas/secrets) into the environment: only the names FB_SECRETS lists (comma-separated,
    what the platform put there), so a file of another name (LD_PRELOAD, OPENSSL_CONF, http_proxy) never
    reaches the environment child processes inherit; a variable already set is left alone."""
    d = os.environ.get("FB_SECRETS_DIR")
    if not d or not os.path.isdir(d):
        return
    for name in os.environ.get("FB_SECRETS", "").split(","):
        path = os.path.join(d, name)
        if name.isidentifier() and name not in os.environ and os.path.isfile(path) and not os.path.islink(path):
            with open(path, encoding="utf-8") as f:
                os.environ[name] = f.read()


def serve(handler: Handler) -> None:
    """Serves handler until the process is killed (or once, in stdio mode)."""
    load_secrets()
    if os.environ.get("FB_MODE") == "stdio":
        sys.exit(serve_stdio(handler))
    # FB_WORKERS set (even to 1): that many sync workers, one request at a time each, as gunicorn's
    # sync workers and Nuclio's maxWorkers serve; unset: one process serving requests in threads.
    # As a container's PID 1 the process has no default action for SIGTERM: without a handler every
    # pod deletion waits out the grace period (30 s, seen on the real node) before SIGKILL. It exits
    # as a process SIGTERM killed reports itself (143), not 0: behind OpenFaaS's of-watchdog, which
    # forwards SIGTERM, an exit 0 made the watchdog drain for its health-check interval and the pod
    # take the whole grace period (32.8 s to scale to zero, 2.6 s for Go, on the real 2022 gateway).
    signal.signal(signal.SIGTERM, lambda *_: os._exit(128 + signal.SIGTERM))
    env_workers = os.environ.get("FB_WORKERS", "")
    workers = int(env_workers or "1")
    server = make_server(handler, sync_worker=env_workers != "")
    for _ in range(max(0, workers - 1)):
        if os.fork() == 0:
            _die_with_parent()
            break
    else:
        announce(server.server_address[1])
    server.serve_forever()
