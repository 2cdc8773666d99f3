"""A seed spec's functions as a real platform can run them, or nothing when it runs them as written.

    python3 deploy/node/platform_functions.py SPEC PLATFORM   # prints functions=<JSON> for --set, or nothing
    python3 deploy/node/platform_functions.py --database SPEC...  # exit 0 when any reaches the project's database
    python3 deploy/node/platform_functions.py --install PLATFORM SPEC...
        # what the platform's install must be for the specs, VAR=VALUE a line for its up.sh (nothing: as it installs)
    faasbench run SPEC --dry-run ... | python3 deploy/node/platform_functions.py --images SPEC PLATFORM
        # the images the plan's cells need on PLATFORM, one WORKLOAD:LANG[:FLAVOR] a line (deploy/node/images.sh)

deploy/node/seed.sh moves the examples (written for the local platform) to a real platform on the
command line; where a platform cannot take a function as written, this says how it is run instead, and
the run's manifest records it (the spec as run):
  nuclio    the functions in the languages faasbench builds on Nuclio's processor only: Python, Node.js, Go (a plugin), and C++ in
            Nuclio's shell runtime (a process per request; a cell's query reaches it as the command's
            argument, in X-Nuclio-Arguments: the Nuclio adapter's QueryHeader); where the
            spec's payloads exceed the HTTP trigger's default 4 MiB body limit, with settings.max_request_body_size
            raised to the largest (seed 000 counted Nuclio's refusals above 4 MiB as successes);
  openfaas  a function scaled by the local platform's concurrency autoscaler (settings.autoscale with
            min and max, Knative's KPA model) is scaled by OpenFaaS's own: AlertManager's alert, with
            com.openfaas.scale.min and max from the same min and max (scale_min, scale_max), the rest
            of OpenFaaS's defaults (the factor: 20 % of max per alert), as the seed ran it; a C++ function
            given no mode runs in mode fork, by the classic watchdog (a process per request, the query in
            Http_Query), as seed 000 ran its C++ functions on OpenFaaS (its of-watchdog image would wrap the
            same process in faasbench's server).
            A spec labelled autoscaling: study (seed 003's autoscaling as the study set it, its footnote 11) is
            scaled as the study set OpenFaaS: com.openfaas.scale.factor 10 (a tenth of max per alert), and the
            install's alert (--install: deploy/openfaas/up.sh's OPENFAAS_ALERT_*) fires above 10 req/s, its rule
            held, evaluated and notified every 2 s. The study's Knative settings are the spec's own (portable:
            stable and panic windows, panic threshold).
  openwhisk a spec labelled limits: study (seed 004's deployment, its l. 387: "custom configured to allow unlimited
            concurrent requests instead of the default 100 requests per minute per namespace") runs on an OpenWhisk
            installed (--install: deploy/openwhisk/up.sh's OW_INVOKES_*) with its per-minute and concurrent
            invocation limits at the largest up.sh takes, 9999999 each: none binds a run. Without the label,
            OpenWhisk's own defaults (60 a minute, 30 at once) answer what exceeds them with 429.
  nuclio    (install) a spec labelled gateway: ingress runs on a Nuclio installed with Traefik in front of its
            functions (--install: deploy/nuclio/up.sh's NUCLIO_INGRESS=traefik); each function then gets an ingress
            from the platform's host template and is called through it (platform.options.ingress_url).
  kubeless  (install) a spec labelled gateway: ingress runs on a Kubeless installed with Traefik in front of its
            functions (--install: deploy/kubeless/up.sh's KUBELESS_INGRESS=traefik), as seed 003 ran Kubeless (l. 114,
            its footnote 10: "Kubeless (v1.0.4) with Traefik ingress controller"); each function then gets the Ingress
            Kubeless's HTTP trigger makes with --gateway traefik and is called through it (platform.options.ingress_url).
  openwhisk the local platform's models of OpenWhisk are dropped: settings.max_body (its payload limit: the
            deployment's own whisk.activation.payload.max, 1 MiB, answers 413), settings.routing least-outstanding and
            queue_timeout (its balancer within an invoker and its queue) and replicas (the containers an invoker's
            2048 MB of user memory holds: the invoker's own container pool decides). A function routed as OpenWhisk's
            balancer over several invokers (routing: sharding) is refused: the node's OpenWhisk has one invoker.
  (every)   a function that reaches the project's database (an env value naming ${FB_DB_...}) and names no host is
            given FB_DB_HOST: "${FB_DB_HOST}": the database runs inside the node on its address
            (deploy/node/services.sh, started by deploy/node/seed.sh for such a spec), where the workload's default,
            127.0.0.1, is the function's own container.
  kubeless  a Python function whose workload has a Kubeless function (workloads/W/python/actions/kubeless.py)
            runs on Kubeless's own 2019 Python runtime (settings.runtime python3.11 and code_file), as seed 003
            ran Kubeless: each call in a process forked for it; the others run as the workload's image
            (Kubeless's runtime-image mode).
"""
import json
import pathlib
import sys

import yaml

NUCLIO_LANGUAGES = ("python", "node", "cpp", "go")
# Nuclio's HTTP trigger refuses a body over maxRequestBodySize (its default 4 MiB; 1.14.1's fasthttp answers 400
# "Error when parsing request" or resets the connection: fasthttp's limit in
# pkg/processor/trigger/http). Seed 000 sent Nuclio up to 16 MiB with the default and counted the refusals as
# successes (../shared/reference/seed-systems.md); to measure the work the study meant, a spec whose payloads
# exceed the default runs on Nuclio with the limit raised to its largest payload (in the manifest's spec).
NUCLIO_DEFAULT_MAX_BODY = 4 << 20
WORKLOADS = pathlib.Path(__file__).resolve().parents[2] / "workloads"
KUBELESS_RUNTIME = "python3.11"  # deploy/kubeless/runtimes.yaml: the 2019 kubeless.py on Python 3.11
# Seed 003's footnote 11 (l. 189): "for OpenFaaS, we set scale-factor to 10 and configure the alert-notification
# window to 2s, and RPS threshold to 10". A spec labelled autoscaling: study runs OpenFaaS so.
STUDY_003_OPENFAAS = {"scale_factor": "10"}
STUDY_003_OPENFAAS_INSTALL = {"OPENFAAS_ALERT_RPS": "10", "OPENFAAS_ALERT_WINDOW": "2s"}
AUTOSCALING_DESIGNS = ("study",)
# Seed 004, l. 387: "Openwhisk is custom configured to allow unlimited concurrent requests instead of the default 100
# requests per minute per namespace". OpenWhisk's limits are whole numbers (its Entitlement's throttlers); up.sh
# takes at most 9999999, which no run of faasbench's reaches in a minute. A spec labelled limits: study runs so.
STUDY_004_OPENWHISK_INSTALL = {"OW_INVOKES_PER_MINUTE": "9999999", "OW_INVOKES_CONCURRENT": "9999999"}
LIMITS_DESIGNS = ("study",)
# A spec labelled gateway: ingress calls its functions through an ingress controller where the platform's users put
# one in front of them: on Nuclio, Traefik (deploy/nuclio/up.sh NUCLIO_INGRESS=traefik; seed 003 ran an ingress in
# front of Nuclio for its Fig 6 remark and Fig 9's IG mode, and Traefik in front of Kubeless); on Kubeless, Traefik
# (deploy/kubeless/up.sh KUBELESS_INGRESS=traefik).
GATEWAY_DESIGNS = ("ingress",)
INGRESS_INSTALL = {"nuclio": {"NUCLIO_INGRESS": "traefik"}, "kubeless": {"KUBELESS_INGRESS": "traefik"}}
# The local platform's settings that model OpenWhisk (functions_for drops them there, with replicas).
OPENWHISK_LOCAL_MODELS = {"max_body", "routing", "queue_timeout"}
# The project's database as the workloads find it (workloads/query/workload.yaml): FB_DB_HOST defaults to 127.0.0.1.
DB_ENV_REF = "${FB_DB_"
DB_HOST = "FB_DB_HOST"


def reaches_database(f):
    """Whether function f reaches the project's database: an env value naming ${FB_DB_...}."""
    return any(DB_ENV_REF in str(v) for v in (f.get("env") or {}).values())


def uses_database(spec):
    """Whether any of spec's functions reaches the project's database (what deploy/node/seed.sh starts
    deploy/node/services.sh for)."""
    return any(reaches_database(f) for f in spec.get("functions") or [])


def _label_design(spec, label, designs, unlabelled):
    """The spec's labels.<label>: one of designs, or None when it has none (unlabelled says what that means); any
    other value is refused (ValueError), never ignored: a misspelt label would silently run another design."""
    d = (spec.get("labels") or {}).get(label)
    if d is not None and d not in designs:
        raise ValueError(f"labels.{label}: {d!r}: want one of {', '.join(designs)} (or no label: {unlabelled})")
    return d


def autoscaling_design(spec):
    """The spec's labels.autoscaling: "study" (seed 003's footnote 11 on every platform) or None (each platform's
    own defaults)."""
    return _label_design(spec, "autoscaling", AUTOSCALING_DESIGNS, "each platform's defaults")


def kubeless_code_file(f, workloads=WORKLOADS):
    """The Kubeless function file a Python function of the spec runs from on Kubeless's runtime, or None."""
    if f.get("language") != "python":
        return None
    rel = f"{f['workload']}/python/actions/kubeless.py"
    return rel if (workloads / rel).is_file() else None


def functions_for(spec, platform):
    """The functions to run instead of spec's (a list), or None when they run as written."""
    fns = spec.get("functions") or []
    payloads = [int(p) for p in (spec.get("vary") or {}).get("payload_size") or []]
    big = max(payloads, default=0) if max(payloads, default=0) > NUCLIO_DEFAULT_MAX_BODY else 0
    study = autoscaling_design(spec) == "study"
    out = []
    for f in fns:
        if platform == "nuclio" and f.get("language") not in NUCLIO_LANGUAGES:
            continue
        st = f.get("settings") or {}
        if platform == "openfaas" and "autoscale" in st:
            scale = {}
            if "min" in st:
                scale["scale_min"] = str(st["min"])
            if "max" in st:
                scale["scale_max"] = str(st["max"])
            if study:
                scale.update(STUDY_003_OPENFAAS)
            f = dict(f, settings=scale)
        if platform == "openfaas" and f.get("language") == "cpp" and not f.get("mode"):
            f = dict(f, mode="fork")
        code_file = kubeless_code_file(f) if platform == "kubeless" and "runtime" not in st and "image" not in st else None
        if code_file:
            f = dict(f, settings=dict(st, runtime=KUBELESS_RUNTIME, code_file=code_file))
        # Sharding over modelled invokers is the figure where a run counts each instance's share (Figs 5.7, 5.10); in
        # an autoscale run (Fig 5.8: CPU over time, the instances together) it only spreads the load, which
        # OpenWhisk's own balancer does on its one invoker: there it goes with the other local models.
        if platform == "openwhisk" and st.get("routing") == "sharding" and spec.get("kind") != "autoscale":
            raise ValueError(f"functions: {f.get('name') or f['workload']}: settings.routing sharding models OpenWhisk's "
                             f"balancer over {f.get('replicas', 1)} invokers (an instance each); the real node's OpenWhisk "
                             "(deploy/openwhisk/up.sh, standalone) has one invoker: the figure cannot be run there")
        if platform == "openwhisk" and (OPENWHISK_LOCAL_MODELS & set(st) or "replicas" in f):
            # The local platform's models of OpenWhisk (seed 004): its payload limit (max_body, Fig 5.16), its
            # balancer within an invoker and its queue (routing least-outstanding, queue_timeout) and the containers
            # an invoker's user memory holds (replicas: 2048 MB over the action's memory). On OpenWhisk the
            # deployment's own limit, balancer, queue and container pool do it, as the study met them.
            # With sharding, concurrency is an invoker's slots (8: OpenWhisk's default), not an action's
            # intra-container concurrency (1, as the study left it): it goes too.
            drop = {"replicas", "concurrency"} if st.get("routing") == "sharding" else {"replicas"}
            f = {k: v for k, v in f.items() if k not in drop}
            f["settings"] = {k: v for k, v in st.items() if k not in OPENWHISK_LOCAL_MODELS}
            if not f["settings"]:
                del f["settings"]
        if reaches_database(f) and DB_HOST not in f["env"]:
            # On a real platform the database is the node's (deploy/node/services.sh), not the container's loopback.
            f = dict(f, env=dict(f["env"], **{DB_HOST: "${" + DB_HOST + "}"}))
        if platform == "nuclio" and big and "max_request_body_size" not in st:
            f = dict(f, settings=dict(st, max_request_body_size=str(big)))
        out.append(f)
    if not out:
        raise ValueError(f"functions: none of the spec's functions can run on {platform}")
    return None if out == fns else out


def limits_design(spec):
    """The spec's labels.limits: "study" (the platform's request limits as seed 004 raised OpenWhisk's) or None (the
    platform's own)."""
    return _label_design(spec, "limits", LIMITS_DESIGNS, "the platform's own limits")


def gateway_design(spec):
    """The spec's labels.gateway: "ingress" (an ingress controller in front of the functions where the platform's
    users put one) or None (the platform's own gateway: Nuclio's NodePort)."""
    return _label_design(spec, "gateway", GATEWAY_DESIGNS, "the platform's own gateway")


def install_for(specs, platform):
    """What platform's install must be for all of specs (a dict for its up.sh's environment, {} for its defaults):
    on OpenFaaS, a spec labelled autoscaling: study with a function it scales needs the study's alert; on OpenWhisk,
    a spec labelled limits: study needs seed 004's raised invocation limits; on Nuclio and Kubeless, a spec labelled
    gateway: ingress needs Traefik in front of the functions. Specs that need different installs
    cannot share one (ValueError: run them apart)."""
    out, by = None, None
    for name, spec in specs:
        need = {}
        if platform == "openfaas" and autoscaling_design(spec) == "study" and any(
                "autoscale" in (f.get("settings") or {}) for f in spec.get("functions") or []):
            need = dict(STUDY_003_OPENFAAS_INSTALL)
        if limits_design(spec) == "study" and platform == "openwhisk":
            need = dict(STUDY_004_OPENWHISK_INSTALL)
        if gateway_design(spec) == "ingress" and platform in INGRESS_INSTALL:
            need = dict(INGRESS_INSTALL[platform])
        if out is not None and need != out:
            raise ValueError(f"{name} needs {platform} installed with {need or 'its defaults'}, {by} with "
                             f"{out or 'its defaults'}: one install serves them both only if alike; run them apart")
        out, by = need, name
    return out or {}


def headerless_in(fns, platform):
    """The names of the functions fns (as they run on platform) whose replies cannot name their instance: on OpenFaaS
    those a process per request answers (mode fork, or settings.watchdog classic or of-serializing: the watchdog
    passes the process's output alone), on Nuclio C++ (its shell runtime). deploy/node/check-run.py reads them from
    a run's manifest (the spec as run)."""
    out = []
    for f in fns:
        wd = (f.get("settings") or {}).get("watchdog")
        if (platform == "openfaas" and (f.get("mode") == "fork" or wd in ("classic", "of-serializing"))) or \
                (platform == "nuclio" and f.get("language") == "cpp"):
            out.append(f.get("name") or f"{f['workload']}-{f['language']}")
    return out


def images_for(spec, platform, plan):
    """The images plan's cells (faasbench run --dry-run) need on platform, as deploy/node/images.sh names
    them: on OpenFaaS the of-watchdog's flavor, or the classic watchdog's for a cell of mode fork (the
    function's mode as it will run there (functions_for: C++ in mode fork) or the vary grid's: a process per
    request, as seeds 000 and 002 ran their functions); on Nuclio
    its processor's; on OpenWhisk the Docker action's (faasbench's action proxy); elsewhere the workload's own."""
    fns = functions_for(spec, platform) or spec.get("functions") or []  # the functions as they will run
    fork = {f.get("name") or f["workload"] + "-" + f["language"] for f in fns if f.get("mode") == "fork"}
    # A function Kubeless's runtime runs has the runtime's image (deploy/kubeless/up.sh imports it), not its own.
    runtime = {f.get("name") or f["workload"] + "-" + f["language"] for f in fns
               if platform == "kubeless" and (f.get("settings") or {}).get("runtime")}
    server_lang = ((spec.get("baseline") or {}).get("server") or {}).get("language")
    out = set()
    for c in plan["cells"]:
        via = next((p["value"] for p in c.get("params") or [] if p["name"] == "via"), None)
        if via == "server":
            # baseline.server's server, in its own language: on OpenWhisk a plain Deployment beside it (the
            # workload's own image: platform/openwhisk/servers.go), elsewhere one of the platform's functions.
            lang = server_lang or c["language"]
            flavor = {"openfaas": "openfaas", "nuclio": "nuclio"}.get(platform)
            out.add(f"{c['workload']}:{lang}" + (f":{flavor}" if flavor else ""))
            continue
        if c["function"] in runtime:
            continue
        forked = c["function"] in fork or "/mode=fork/" in c["id"]
        flavor = {"openfaas": "openfaas-classic" if forked else "openfaas", "nuclio": "nuclio", "openwhisk": "openwhisk"}.get(platform)
        out.add(f"{c['workload']}:{c['language']}" + (f":{flavor}" if flavor else ""))
    return sorted(out)


def main(argv):
    if len(argv) == 3 and argv[0] == "--images":
        with open(argv[1]) as fh:
            spec = yaml.safe_load(fh)
        text = sys.stdin.read()
        if not text.strip():
            print(f"platform_functions: {argv[1]}: no plan on stdin (the dry run failed?)", file=sys.stderr)
            return 2
        for img in images_for(spec, argv[2], json.loads(text)):
            print(img)
        return 0
    if len(argv) >= 2 and argv[0] == "--database":
        # Exit 0 when any of the specs reaches the project's database (deploy/node/seed.sh then starts it), else 1.
        for path in argv[1:]:
            with open(path) as fh:
                if uses_database(yaml.safe_load(fh)):
                    return 0
        return 1
    if len(argv) >= 3 and argv[0] == "--install":
        specs = []
        for path in argv[2:]:
            with open(path) as fh:
                specs.append((path, yaml.safe_load(fh)))
        try:
            env = install_for(specs, argv[1])
        except ValueError as e:
            print(f"platform_functions: {e}", file=sys.stderr)
            return 2
        for k, v in sorted(env.items()):
            print(f"{k}={v}")
        return 0
    if len(argv) != 2:
        raise SystemExit(__doc__)

    def one_set(spec):
        fns = functions_for(spec, argv[1])
        return [] if fns is None else ["functions=" + json.dumps(fns, sort_keys=True)]
    return _print_lines(argv[0], one_set)


def _print_lines(spec_path, lines):
    """Prints lines(the spec at spec_path), one a line: exit 0, or 2 with the spec's name and what is wrong."""
    with open(spec_path) as fh:
        spec = yaml.safe_load(fh)
    try:
        out = lines(spec)
    except ValueError as e:
        print(f"platform_functions: {spec_path}: {e}", file=sys.stderr)
        return 2
    for line in out:
        print(line)
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
