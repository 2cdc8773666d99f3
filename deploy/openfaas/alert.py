"""OpenFaaS's scale-up alert set as a study set it, in the chart deploy/openfaas/render.sh rendered.

    deploy/openfaas/render.sh | python3 deploy/openfaas/alert.py --rps N --window D > openfaas.yaml

OpenFaaS CE scales a function up when AlertManager posts its APIHighInvocationRate alert to the gateway
(/system/alert): each notification adds com.openfaas.scale.factor % of the function's maximum. The 2022 chart
(faas-netes chart/openfaas, templates/prometheus-cfg.yaml and alertmanager-cfg.yaml) fires the alert when a
function's rate over 10 s is above 5 req/s for 5 s, evaluates it every 15 s, and AlertManager notifies 5 s after
the first alert, then every 10 s on a change and every 30 s while it fires. Seed 003's footnote 11 (l. 189):
"configure the alert-notification window to 2s, and RPS threshold to 10". This sets the threshold to N req/s and
every one of those timings (the rule held, evaluated, first notified, notified again) to D, so that a firing
alert adds a step every D, as the study's OpenFaaS did (one instance at a time, 10 in 26 s). The rate's own
window (10 s, two of the gateway's 5 s scrapes) is kept: a shorter one holds fewer than two samples.

Each line edited must be in the chart once, as the pinned chart has it; otherwise the chart is not the one this
was written against and nothing is printed (exit 1, naming the line). Bad arguments: exit 2, naming the flag.
"""
import argparse
import re
import sys

DURATION = re.compile(r"^[1-9][0-9]*(ms|s|m)$")  # a Prometheus and AlertManager duration, one unit
RULE = re.compile(r'^( +expr: sum\(rate\(gateway_function_invocation_total\{code="200"\}\[10s\]\)\) BY \(function_name\) > )5\n( +for: )5s$',
                  re.M)


def edits(rps, window):
    """(what, pattern, replacement) for each edit; each pattern must match once."""
    return [
        ("prometheus.yml's evaluation_interval", re.compile(r"^( +evaluation_interval: )15s$", re.M), rf"\g<1>{window}"),
        ("alert.rules.yml's APIHighInvocationRate rule (> 5, for: 5s)", RULE, rf"\g<1>{rps}\n\g<2>{window}"),
        ("alertmanager.yml's group_wait", re.compile(r"^( +group_wait: )5s$", re.M), rf"\g<1>{window}"),
        ("alertmanager.yml's group_interval", re.compile(r"^( +group_interval: )10s$", re.M), rf"\g<1>{window}"),
        ("alertmanager.yml's repeat_interval", re.compile(r"^( +repeat_interval: )30s$", re.M), rf"\g<1>{window}"),
    ]


def apply(text, rps, window):
    """text with the edits made; ValueError naming the first line not found exactly once."""
    for what, pat, repl in edits(rps, window):
        text, n = pat.subn(repl, text)
        if n != 1:
            raise ValueError(f"{what}: found {n} times in the rendered chart, where OpenFaaS's 2022 chart has it once: "
                             "not the chart this was written against")
    return text


def parse(argv):
    p = argparse.ArgumentParser(prog="deploy/openfaas/alert.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--rps", required=True, help="the rate (req/s) above which the alert fires")
    p.add_argument("--window", required=True, help="how long the rule holds, and how often it is evaluated and notified (2s)")
    a = p.parse_args(argv)
    try:
        rps = float(a.rps)
    except ValueError:
        rps = -1
    if not (0 < rps < 1e6):
        p.error(f"--rps {a.rps!r}: want a rate in req/s above 0")
    if not DURATION.match(a.window):
        p.error(f"--window {a.window!r}: want a duration such as 2s or 500ms")
    return a.rps, a.window


def main(argv, stdin=sys.stdin, stdout=sys.stdout):
    rps, window = parse(argv)
    try:
        out = apply(stdin.read(), rps, window)
    except ValueError as e:
        print(f"openfaas-alert: {e}", file=sys.stderr)
        return 1
    stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
