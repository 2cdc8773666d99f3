"""hello as an OpenWhisk Python action (a native python kind's code: settings.code_file) for a raw-HTTP web action:
answers 4 bytes and does no work, as main.py does behind faasbench's runtime, with the function contract's headers
(docs/function-contract.md) from inside OpenWhisk's own Python runtime (its action-loop proxy runs this in one
long-lived process per container): the instance is the container (its host name and the process), cold only on
the first activation it runs."""
import os
import socket
import time

INSTANCE = f"{socket.gethostname()}-{os.getpid()}"
_served = False


def main(_args):
    global _served
    begin = time.monotonic_ns()
    cold = not _served
    _served = True
    end = time.monotonic_ns()
    headers = {"Content-Type": "text/plain", "X-Fb-Instance": INSTANCE, "X-Fb-Cold": "1" if cold else "0",
               "X-Fb-Handler-Begin-Ns": str(begin), "X-Fb-Handler-End-Ns": str(end)}
    if cold:
        headers["X-Fb-Cold-Kind"] = "process"
    return {"statusCode": 200, "headers": headers, "body": "pong"}
