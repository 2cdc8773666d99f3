import pathlib

import pytest
import yaml

import platform_functions as pf

ROOT = pathlib.Path(__file__).resolve().parents[2]


def spec(name):
    return yaml.safe_load((ROOT / "examples" / name).read_text())


def test_nuclio_runs_the_languages_faasbench_builds_on_its_processor():
    assert pf.functions_for(spec("003-gateway-direct.yaml"), "nuclio") is None  # Go and Python: as written
    assert pf.functions_for(spec("003-http-workload.yaml"), "nuclio") is None
    mixed = {"functions": [{"workload": "prime", "language": "java"}, {"workload": "hello", "language": "go"}]}
    assert pf.functions_for(mixed, "nuclio") == [{"workload": "hello", "language": "go"}]
    with pytest.raises(ValueError, match="none of the spec's functions can run on nuclio"):
        pf.functions_for({"functions": [{"workload": "prime", "language": "java"}]}, "nuclio")


def test_nuclio_runs_cpp_in_its_shell_runtime():
    small = {"vary": {"payload_size": [1, 4096]}, "functions": [{"workload": "reverse", "language": "cpp"}, {"workload": "reverse", "language": "go"}]}
    assert pf.functions_for(small, "nuclio") is None  # C++ and Go, bodies within the limit: as written
    # The image function's variants are chosen by the query, which reaches the shell runtime's command as its argument.
    assert pf.functions_for(spec("000-image-batch.yaml"), "nuclio") is None
    with_query = {"vary": {"path": ["/?n=1"]}, "functions": [{"workload": "reverse", "language": "cpp"}, {"workload": "reverse", "language": "go"}]}
    assert pf.functions_for(with_query, "nuclio") is None


def test_openfaas_scales_by_its_own_autoscaler_with_the_same_bounds():
    s = spec("003-autoscale-steady.yaml")
    fns = pf.functions_for(s, "openfaas")
    assert fns[0]["settings"] == {"scale_min": "1", "scale_max": "10"}
    assert {k: v for k, v in fns[0].items() if k != "settings"} == {k: v for k, v in s["functions"][0].items() if k != "settings"}
    assert pf.functions_for(spec("003-hello-concurrency.yaml"), "openfaas") is None
    assert pf.functions_for(s, "knative") is None


def test_main_prints_a_set_or_nothing(capsys):
    assert pf.main([str(ROOT / "examples/003-payload.yaml"), "openfaas"]) == 0
    assert capsys.readouterr().out == ""
    with_java = ROOT / "examples/004-languages.yaml"
    assert pf.main([str(with_java), "nuclio"]) == 0
    assert capsys.readouterr().out.startswith("functions=[")
    assert pf.main([str(ROOT / "examples/003-payload.yaml"), "nuclio"]) == 0
    assert capsys.readouterr().out == ""


def plan(*cells):
    return {"cells": [{"id": i, "function": f, "workload": w, "language": l} for i, f, w, l in cells]}


def test_images_follow_the_platform_and_the_mode():
    s = spec("003-watchdog-modes.yaml")  # vary mode: [http, fork]
    p = plan(("hello-python/mode=http/c=1/r=1", "hello-python", "hello", "python"),
             ("hello-python/mode=fork/c=1/r=1", "hello-python", "hello", "python"))
    assert pf.images_for(s, "openfaas", p) == ["hello:python:openfaas", "hello:python:openfaas-classic"]
    assert pf.images_for(s, "nuclio", p) == ["hello:python:nuclio"]
    assert pf.images_for(s, "knative", p) == ["hello:python"]
    assert pf.images_for(s, "openwhisk", p) == ["hello:python:openwhisk"]  # a Docker action behind the action proxy
    # A function of mode fork (seed 002's ping) on OpenFaaS: the classic watchdog's image.
    s2 = spec("002-ping-coldwarm.yaml")
    assert pf.images_for(s2, "openfaas", plan(("ping/cold/r=1", "ping", "hello", "python"))) == ["hello:python:openfaas-classic"]


def test_main_prints_the_images(capsys, monkeypatch):
    import io
    import json
    p = plan(("ping/cold/r=1", "ping", "hello", "python"))
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(p)))
    assert pf.main(["--images", str(ROOT / "examples/002-ping-coldwarm.yaml"), "openfaas"]) == 0
    assert capsys.readouterr().out == "hello:python:openfaas-classic\n"


def test_nuclio_takes_the_specs_largest_payload():
    # Seed 000 sends up to 16 MiB; Nuclio's trigger refuses a body over 4 MiB unless its limit is raised.
    fns = pf.functions_for(spec("000-reverse-single.yaml"), "nuclio")
    assert fns == [{"workload": "reverse", "language": lang, "settings": {"max_request_body_size": "16777216"}} for lang in ("cpp", "go")]
    own = {"vary": {"payload_size": [8 << 20]}, "functions": [{"workload": "reverse", "language": "go", "settings": {"max_request_body_size": "9000000"}}]}
    assert pf.functions_for(own, "nuclio") is None  # the spec's own limit is kept
    assert pf.functions_for(spec("000-reverse-single.yaml"), "knative") is None


def test_openfaas_runs_cpp_by_the_classic_watchdog_as_seed_000_did():
    fns = pf.functions_for(spec("000-reverse-parallel.yaml"), "openfaas")
    assert fns == [{"workload": "reverse", "language": "cpp", "mode": "fork"}, {"workload": "reverse", "language": "go"}]
    assert pf.functions_for(spec("000-image-batch.yaml"), "openfaas") == [{"workload": "image", "language": "cpp", "mode": "fork"}]
    given = {"functions": [{"workload": "reverse", "language": "cpp", "mode": "http"}]}
    assert pf.functions_for(given, "openfaas") is None  # the spec's own mode is kept
    # The images follow the functions as they will run, not as the spec wrote them.
    p = plan(("reverse-cpp/replicas=1/payload_size=1/batch", "reverse-cpp", "reverse", "cpp"),
             ("reverse-go/replicas=1/payload_size=1/batch", "reverse-go", "reverse", "go"))
    assert pf.images_for(spec("000-reverse-parallel.yaml"), "openfaas", p) == ["reverse:cpp:openfaas-classic", "reverse:go:openfaas"]
    assert pf.images_for(spec("000-reverse-parallel.yaml"), "knative", p) == ["reverse:cpp", "reverse:go"]


def test_kubeless_runs_python_on_its_own_runtime_as_seed_003_did():
    s = spec("003-hello-concurrency.yaml")
    fns = pf.functions_for(s, "kubeless")
    py = next(f for f in fns if f["language"] == "python")
    go = next(f for f in fns if f["language"] == "go")
    assert py["settings"] == {"runtime": "python3.11", "code_file": "hello/python/actions/kubeless.py"}
    assert go == next(f for f in s["functions"] if f["language"] == "go")  # no Kubeless function: its image
    p = plan(("hello-python/c=1/r=1", "hello-python", "hello", "python"), ("hello-go/c=1/r=1", "hello-go", "hello", "go"))
    assert pf.images_for(s, "kubeless", p) == ["hello:go"]  # the runtime's image is deploy/kubeless/up.sh's
    # The http-workload keeps its env and request; its function file is fetch's.
    w = spec("003-http-workload.yaml")
    (f,) = pf.functions_for(w, "kubeless")
    assert f["settings"]["code_file"] == "fetch/python/actions/kubeless.py" and f["env"] == w["functions"][0]["env"]
    assert (pf.WORKLOADS / f["settings"]["code_file"]).is_file()
    # A function that already names a runtime or an image is run as written.
    mine = {"functions": [{"workload": "hello", "language": "python", "settings": {"image": "x"}}]}
    assert pf.functions_for(mine, "kubeless") is None


def test_headerless_functions_are_those_no_reply_of_which_names_its_instance():
    s = spec("000-reverse-parallel.yaml")  # reverse in C++ and Go

    def as_run(platform):  # the functions as the platform runs them: what a run's manifest records
        return pf.headerless_in(pf.functions_for(s, platform) or s["functions"], platform)
    assert as_run("nuclio") == ["reverse-cpp"]  # the shell runtime: the command's output alone
    assert as_run("openfaas") == ["reverse-cpp"]  # C++ in mode fork: the classic watchdog
    assert as_run("knative") == [] and as_run("kubeless") == []


def test_main_names_the_spec_when_no_function_can_run(tmp_path, capsys):
    only_java = tmp_path / "java.yaml"
    only_java.write_text("functions:\n  - {workload: prime, language: java}\n")
    assert pf.main([str(only_java), "nuclio"]) == 2
    err = capsys.readouterr().err
    assert err.count(f"platform_functions: {only_java}: functions: none of the spec's functions can run on nuclio") == 1


def test_the_studys_autoscaling_runs_openfaas_as_the_study_set_it():
    s = spec("003-autoscale-steady-study.yaml")
    assert pf.functions_for(s, "openfaas")[0]["settings"] == {"scale_min": "1", "scale_max": "10", "scale_factor": "10"}
    assert pf.functions_for(s, "knative") is None  # the study's Knative settings are the spec's own
    assert pf.install_for([("s", s)], "openfaas") == {"OPENFAAS_ALERT_RPS": "10", "OPENFAAS_ALERT_WINDOW": "2s"}
    assert pf.install_for([("s", s)], "knative") == {}
    # Without the label, OpenFaaS's defaults: no factor, the chart's alert.
    plain = spec("003-autoscale-steady.yaml")
    assert "scale_factor" not in pf.functions_for(plain, "openfaas")[0]["settings"]
    assert pf.install_for([("p", plain), ("q", spec("003-hello-concurrency.yaml"))], "openfaas") == {}
    # A study spec with no autoscaled function needs no alert.
    fixed = dict(s, functions=[dict(s["functions"][0], settings={})])
    assert pf.install_for([("f", fixed)], "openfaas") == {}


def test_specs_needing_different_installs_are_refused_and_an_unknown_design_named():
    with pytest.raises(ValueError, match="p needs openfaas installed with its defaults, s with .*run them apart"):
        pf.install_for([("s", spec("003-autoscale-steady-study.yaml")), ("p", spec("003-autoscale-steady.yaml"))], "openfaas")
    odd = dict(spec("003-autoscale-steady.yaml"), labels={"autoscaling": "paper"})
    with pytest.raises(ValueError, match="labels.autoscaling: 'paper': want one of study"):
        pf.functions_for(odd, "openfaas")


def test_seed_004_runs_openwhisk_with_its_limits_raised_as_the_study_did():
    ow = {"OW_INVOKES_PER_MINUTE": "9999999", "OW_INVOKES_CONCURRENT": "9999999"}
    every = sorted((ROOT / "examples").glob("004-*.yaml"))
    assert len(every) == 12
    # Every seed 004 spec: OpenWhisk's throttle raised out of reach, one install for them all; elsewhere nothing.
    assert pf.install_for([(p.name, yaml.safe_load(p.read_text())) for p in every], "openwhisk") == ow
    cold = spec("004-coldwarm.yaml")
    for other in ("openfaas", "knative", "nuclio", "fission", "kubeless", "local"):
        assert pf.install_for([("c", cold)], other) == {}
    # Without the label, OpenWhisk's own limits; with another spec that has it, refused.
    plain = dict(cold, labels={})
    assert pf.install_for([("p", plain)], "openwhisk") == {}
    with pytest.raises(ValueError, match="p needs openwhisk installed with its defaults, c with .*run them apart"):
        pf.install_for([("c", cold), ("p", plain)], "openwhisk")
    # An unknown value is named, on every platform (a misspelt label would silently keep the throttle).
    with pytest.raises(ValueError, match="labels.limits: 'none': want one of study"):
        pf.install_for([("c", dict(cold, labels={"limits": "none"}))], "knative")


def test_an_ingress_in_front_of_nuclio_and_kubeless_for_a_spec_labelled_gateway_ingress():
    ing = spec("003-gateway-direct-ingress.yaml")
    assert pf.install_for([("i", ing)], "nuclio") == {"NUCLIO_INGRESS": "traefik"}
    # Seed 003 ran Kubeless behind Traefik (l. 114, footnote 10).
    assert pf.install_for([("i", ing)], "kubeless") == {"KUBELESS_INGRESS": "traefik"}
    for other in ("openfaas", "knative", "fission", "openwhisk", "local"):
        assert pf.install_for([("i", ing)], other) == {}
    with pytest.raises(ValueError, match="g needs kubeless installed with its defaults, i with .*run them apart"):
        pf.install_for([("i", ing), ("g", spec("003-gateway-direct.yaml"))], "kubeless")
    # The same load unlabelled: Nuclio's NodePort, no ingress; the two cannot share an install.
    assert pf.install_for([("g", spec("003-gateway-direct.yaml"))], "nuclio") == {}
    with pytest.raises(ValueError, match="g needs nuclio installed with its defaults, i with .*run them apart"):
        pf.install_for([("i", ing), ("g", spec("003-gateway-direct.yaml"))], "nuclio")
    with pytest.raises(ValueError, match="labels.gateway: 'nginx': want one of ingress"):
        pf.install_for([("i", dict(ing, labels={"gateway": "nginx"}))], "knative")


def test_openwhisk_meets_its_own_payload_limit_not_the_local_model():
    fns = pf.functions_for(spec("004-payload-limit.yaml"), "openwhisk")
    assert fns == [{"workload": "payload", "language": "node"}]
    # Elsewhere the setting stays (the local platform models the limit with it).
    assert pf.functions_for(spec("004-payload-limit.yaml"), "local") is None


def test_openwhisk_runs_the_ram_quotas_with_its_own_balancer_queue_and_container_pool():
    # The local platform's models (replicas = 2048 MB / quota, least-outstanding routing, a queue) go; the quota stays.
    fns = pf.functions_for(spec("004-memory-quota.yaml"), "openwhisk")
    assert [(f["name"], f["memory_mb"], f["concurrency"], "replicas" in f, f.get("settings")) for f in fns] == [
        ("matrix-128mb", 128, 1, False, None), ("matrix-256mb", 256, 1, False, None), ("matrix-512mb", 512, 1, False, None)]
    assert all(f["request"] == {"path": "?n=300&ram=69999"} for f in fns)
    assert pf.functions_for(spec("004-memory-quota.yaml"), "local") is None
    # Four invokers modelled by the balancer's sharding cannot run on one invoker: refused, naming the function.
    with pytest.raises(ValueError, match="prime-light: settings.routing sharding models OpenWhisk's balancer over 4 invokers"):
        pf.functions_for(spec("004-heavy-vs-light.yaml"), "openwhisk")


def test_openwhisk_runs_the_cpu_timeline_on_its_own_balancer():
    # Fig 5.8's CPU over time (kind autoscale): the sharding over four modelled invokers, their replicas, slots
    # (concurrency 8) and queue go; OpenWhisk's balancer spreads the load on its one invoker, one activation a
    # container (its default, the study's), and the timeline sums its containers' CPU.
    fns = pf.functions_for(spec("004-weather-cpu.yaml"), "openwhisk")
    assert [(f["name"], "replicas" in f, f.get("settings"), "concurrency" in f) for f in fns] == [
        ("weather", False, None, False), ("prime", False, None, False)]
    assert fns[0]["env"] == {"FB_UPSTREAM_URL": "${upstream.url}"}


def test_main_prints_the_install(capsys):
    study, plain = str(ROOT / "examples/003-autoscale-steady-study.yaml"), str(ROOT / "examples/003-autoscale-bursty-study.yaml")
    assert pf.main(["--install", "openfaas", study, plain]) == 0
    assert capsys.readouterr().out == "OPENFAAS_ALERT_RPS=10\nOPENFAAS_ALERT_WINDOW=2s\n"
    assert pf.main(["--install", "openfaas", str(ROOT / "examples/003-autoscale-steady.yaml")]) == 0
    assert capsys.readouterr().out == ""
    assert pf.main(["--install", "openfaas", study, str(ROOT / "examples/003-autoscale-steady.yaml")]) == 2
    assert "run them apart" in capsys.readouterr().err
    assert pf.main(["--install", "openwhisk", str(ROOT / "examples/004-coldwarm.yaml")]) == 0
    assert capsys.readouterr().out == "OW_INVOKES_CONCURRENT=9999999\nOW_INVOKES_PER_MINUTE=9999999\n"


def test_a_function_reaching_the_database_finds_it_on_the_node():
    # Seed 004's query function names the database's password and port, and no host: the workload's default is
    # 127.0.0.1, its own container on a real platform. It is given the node's (deploy/node/services.sh's FB_DB_HOST).
    for platform in ("openwhisk", "openfaas", "knative"):
        fns = pf.functions_for(spec("004-query-delay.yaml"), platform)
        assert fns == [{"workload": "query", "language": "node", "env": {
            "FB_DB_PASSWORD": "${FB_DB_PASSWORD}", "FB_DB_PORT": "${FB_DB_PORT}", "FB_DB_HOST": "${FB_DB_HOST}"}}]
    # A host the spec names stays; a function that does not reach the database is untouched.
    own = {"functions": [{"workload": "query", "language": "node", "env": {"FB_DB_PASSWORD": "${FB_DB_PASSWORD}",
                                                                          "FB_DB_HOST": "db"}}]}
    assert pf.functions_for(own, "openwhisk") is None
    assert pf.functions_for(spec("004-coldwarm.yaml"), "openfaas") is None
    assert pf.uses_database(spec("004-query-delay.yaml")) and not pf.uses_database(spec("004-coldwarm.yaml"))


def test_main_says_whether_any_spec_reaches_the_database():
    query, cold = str(ROOT / "examples/004-query-delay.yaml"), str(ROOT / "examples/004-coldwarm.yaml")
    assert pf.main(["--database", cold, query]) == 0
    assert pf.main(["--database", cold]) == 1


def test_a_server_cells_image_is_the_servers_own():
    # Seed 004 Fig 5.1: the functions in Node.js through the gateway, their servers in Java (baseline.server) past it.
    s = spec("004-platform-vs-server.yaml")
    cells = [{"id": "prime-light/via=gateway/burst=50/r=1", "function": "prime-light", "workload": "prime",
              "language": "node", "params": [{"name": "via", "value": "gateway"}, {"name": "burst", "value": "50"}]},
             {"id": "prime-light/via=server/burst=50/r=1", "function": "prime-light", "workload": "prime",
              "language": "node", "params": [{"name": "via", "value": "server"}, {"name": "burst", "value": "50"}]}]
    # On OpenWhisk the server is a plain Deployment beside it: the workload's own image; the action its proxy's.
    assert pf.images_for(s, "openwhisk", {"cells": cells}) == ["prime:java", "prime:node:openwhisk"]
    # Elsewhere it is one of the platform's functions, in the server's language.
    assert pf.images_for(s, "openfaas", {"cells": cells}) == ["prime:java:openfaas", "prime:node:openfaas"]
    assert pf.images_for(s, "knative", {"cells": cells}) == ["prime:java", "prime:node"]
