"""faasbench's function for Fission's own Python environment (entrypoint ``fb_fission.main``).

Fission's Python environment (fission/environments ``python/server.py``, built here by
deploy/fission/envs.sh) is a Flask app on bjoern, one process, that imports a function module at
specialisation and calls its entrypoint for every request on every path. faasbench's Fission adapter
(platform/fission, ``settings.env_image`` without ``code_file``) packages a Python workload for it as a
zip laid out as the repository is: this module at the top, the contract runtime at ``runtime/python/fbrt.py``
and the workload's python/ directory at ``workload/python/`` (its main.py finds the runtime as it does in the
repository, two directories up). Fission's
fetcher unpacks the zip into the pod; the environment's ``/v2/specialize`` puts that directory on
sys.path and imports this module, which loads the workload's ``handle`` there and then, so a broken
workload fails the specialisation, as a broken Fission function does.

Every reply carries the function contract's headers (docs/function-contract.md, fbrt.invoke); the cold
flag is this process's first counted request; GET /_fb/health answers 200 and never counts. The
request reaches ``main`` as Flask's ``request``: the method, the path the router forwards, the query
(first value per key), the headers and the raw body.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "runtime", "python"))

import fbrt  # noqa: E402
from flask import Response, request  # noqa: E402 - the environment's Flask (its requirements.txt)

MAIN = os.path.join(HERE, "workload", "python", "main.py")

_handle = fbrt.load_handler(MAIN, "the package's workload/python/main.py")
_cold = fbrt.ColdFlag()
_instance = fbrt.instance_id()


def main() -> Response:
    """One request, inside the environment's Flask app."""
    if request.method == "GET" and request.path == fbrt.HEALTH_PATH:
        return Response(b"ok", headers={"X-Fb-Instance": _instance})
    req = fbrt.Request(
        method=request.method,
        path=request.path,
        query={k: request.args.get(k, "") for k in request.args},
        headers=dict(request.headers.items()),
        body=request.get_data(),
    )
    resp, extra = fbrt.invoke(_handle, req, _cold.take(), _instance)
    return Response(resp.body, status=resp.status, headers={**resp.headers, **extra})
