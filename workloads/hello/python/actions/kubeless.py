"""hello as a Kubeless Python function (settings.runtime: python3.11 with settings.code_file; the handler is
kubeless.main): answers 4 bytes and does no work, as main.py does behind faasbench's runtime, with the function
contract's headers (docs/function-contract.md) from inside Kubeless's own runtime. That runtime (kubeless.py of
2019) runs each call in a process forked for it and sends back only what the handler returns, so the headers
travel in a bottle.HTTPResponse (bottle applies a returned response's headers) and what the call's process learns
dies with it: the instance is the pod (its host name), and a call is cold when it is the first its pod served,
known by a file in the container's /tmp that the first call makes."""
import os
import socket
import time

MARKER = "/tmp/.faasbench-served"


def main(event, context):
    begin = time.monotonic_ns()
    try:
        fd = os.open(MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
        cold = True
    except FileExistsError:
        cold = False
    import bottle  # the runtime's own: kubeless.py serves with it
    headers = {"Content-Type": "text/plain", "X-Fb-Instance": socket.gethostname(), "X-Fb-Cold": "1" if cold else "0",
               "X-Fb-Handler-Begin-Ns": str(begin), "X-Fb-Handler-End-Ns": str(time.monotonic_ns())}
    if cold:
        headers["X-Fb-Cold-Kind"] = "container"
    return bottle.HTTPResponse(body="pong", status=200, headers=headers)
