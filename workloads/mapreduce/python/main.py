"""mapreduce: seed 002's coordinator, mappers and pairwise reducers, invoked through the platform.

Coordinator (default role):
  ?docs=N           documents doc-0000.txt .. doc-(N-1).txt (faasbench data corpus names them so)
  ?variant=         mappers: mappers count words, the coordinator merges (seed 002's "only mappers");
                    reducers: mappers count by first letter, reducer invocations merge two inputs each,
                    level by level (seed 002's "mappers + reducers")
  ?parallel=K       at most K invocations in flight (default 16)
  ?per_mapper=F     files given to each mapper (default 1): ceil(N/F) mappers (seed 002 Figs 10-11's x axis)
  ?attempts=A       invocations per task before the job fails (default 3)
  ?fail=P           passed to the mappers (fault injection)
Reducer: ?role=reduce, body a JSON list of two count objects; answers their sum.
The coordinator times every task it invokes (through the gateway, as it waits for them) and says so
in X-Fb-Phases (milliseconds, faasbench records them per cell): mapper and mapper_max (the mean and
the slowest mapper of the job), reducer and reducer_max, map_phase and reduce_phase (wall time of
each phase); the coordinator's own total is the request's latency.
Environment: FB_GATEWAY_URL (the platform gives it), FB_MAPPER (default wordcount), FB_REDUCER
(default this function, FB_FUNCTION_NAME).
"""

import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402

MAX_DOCS = 100_000
TIMEOUT_S = 300


class Job:
    """One coordinator run: invokes tasks with bounded attempts and counts them."""

    def __init__(self, attempts: int) -> None:
        self.gateway = os.environ.get("FB_GATEWAY_URL", "").rstrip("/")
        if not self.gateway:
            raise fbrt.FunctionError("FB_GATEWAY_URL is not set: the coordinator invokes functions through the platform")
        self.attempts = attempts
        self.lock = threading.Lock()
        self.tasks = 0
        self.retries = 0
        self.errors: list[str] = []
        self.took: dict[str, list[float]] = {"mapper": [], "reducer": []}

    def invoke(self, function: str, query: str, body: bytes | None = None, kind: str = "mapper") -> dict:
        started = time.monotonic()
        try:
            return self._invoke(function, query, body)
        finally:
            with self.lock:
                self.took[kind].append((time.monotonic() - started) * 1000)

    def _invoke(self, function: str, query: str, body: bytes | None) -> dict:
        url = f"{self.gateway}/function/{function}?{query}"
        last = ""
        for attempt in range(self.attempts):
            with self.lock:
                self.tasks += 1
                if attempt:
                    self.retries += 1
            try:
                req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
                with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
                    return json.loads(resp.read())
            except urllib.error.HTTPError as e:
                last = f"{function}?{query}: {e.code} {e.headers.get('X-Fb-Error', '')}".strip()
            except (urllib.error.URLError, OSError, ValueError) as e:
                last = f"{function}?{query}: {e}"
            with self.lock:
                self.errors.append(last)
        raise fbrt.FunctionError(f"task failed {self.attempts} times; last: {last}")


def merge(a: dict, b: dict) -> dict:
    out = Counter(a)
    out.update(b)
    return dict(out)


def coordinate(req: fbrt.Request) -> dict:
    docs = int(req.query.get("docs", "0"))
    if not 1 <= docs <= MAX_DOCS:
        raise fbrt.FunctionError(f"docs={docs}: want 1..{MAX_DOCS}")
    variant = req.query.get("variant", "mappers")
    if variant not in ("mappers", "reducers"):
        raise fbrt.FunctionError(f"variant={variant!r}: want mappers or reducers")
    parallel = int(req.query.get("parallel", "16"))
    attempts = int(req.query.get("attempts", "3"))
    per = int(req.query.get("per_mapper", "1"))
    if not 1 <= parallel <= 1024 or not 1 <= attempts <= 100:
        raise fbrt.FunctionError(f"parallel={parallel}, attempts={attempts}: want 1..1024 and 1..100")
    if not 1 <= per <= 1000:
        raise fbrt.FunctionError(f"per_mapper={per}: want 1..1000")
    mapper = os.environ.get("FB_MAPPER", "wordcount")
    reducer = os.environ.get("FB_REDUCER") or os.environ.get("FB_FUNCTION_NAME", "mapreduce")
    fail = req.query.get("fail", "0")
    job = Job(attempts)
    by = "word" if variant == "mappers" else "letter"
    tasks = [",".join(f"doc-{i:04d}.txt" for i in range(s, min(s + per, docs))) for s in range(0, docs, per)]
    phases: dict[str, float] = {}
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        t0 = time.monotonic()
        parts = list(pool.map(lambda files: job.invoke(mapper, f"files={files}&by={by}&fail={fail}"), tasks))
        phases["map_phase"] = (time.monotonic() - t0) * 1000
        t0 = time.monotonic()
        levels = 0
        if variant == "mappers":
            result: dict = {}
            for p in parts:
                result = merge(result, p)
        else:
            while len(parts) > 1:
                pairs = [parts[i:i + 2] for i in range(0, len(parts), 2)]
                parts = list(pool.map(lambda pr: pr[0] if len(pr) == 1 else job.invoke(reducer, "role=reduce", json.dumps(pr).encode(), "reducer"), pairs))
                levels += 1
            result = parts[0]
            phases["reduce_phase"] = (time.monotonic() - t0) * 1000
    for kind, took in job.took.items():
        if took:
            phases[kind] = sum(took) / len(took)
            phases[kind + "_max"] = max(took)
    out = {"variant": variant, "docs": docs, "mappers": len(tasks), "per_mapper": per, "tasks": job.tasks,
           "retries": job.retries, "levels": levels, "words": sum(result.values()), "phases_ms": phases}
    if variant == "mappers":
        out["distinct"] = len(result)
    else:
        out["letters"] = result
    return out


def handle(req: fbrt.Request) -> fbrt.Response:
    if req.query.get("role") == "reduce":
        pair = json.loads(req.body or b"null")
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(p, dict) for p in pair):
            raise fbrt.FunctionError("reduce: body must be a JSON list of two objects")
        out = merge(pair[0], pair[1])
        return fbrt.Response(json.dumps(out, sort_keys=True).encode(), headers={"Content-Type": "application/json"})
    out = coordinate(req)
    phases = ",".join(f"{k}={v:.3f}" for k, v in sorted(out["phases_ms"].items()))
    return fbrt.Response(json.dumps(out, sort_keys=True).encode(), headers={"Content-Type": "application/json", "X-Fb-Phases": phases})


if __name__ == "__main__":
    fbrt.serve(handle)
