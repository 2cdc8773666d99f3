"""OpenFaaS's own 2022 chart, rendered by Helm's own `helm template` with faasbench's values
(deploy/openfaas/render.sh): what it installs is what faasbench means to install. Seen failing with
`async: true` in deploy/openfaas/values.yaml (the queue-worker and NATS appear)."""
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def objects():
    r = subprocess.run(["bash", str(ROOT / "deploy/openfaas/render.sh")], capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-2000:]
    return [d for d in yaml.safe_load_all(r.stdout) if d]


def by(objects, kind, name):
    found = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} rendered"
    return found[0]


def containers(dep):
    return {c["name"]: c for c in dep["spec"]["template"]["spec"]["containers"]}


def env(c):
    return {e["name"]: e.get("value") for e in c.get("env", [])}


def test_what_is_installed(objects):
    deps = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "Deployment")
    # async off: no NATS, no queue-worker; the studies' autoscaling: Prometheus and AlertManager.
    assert deps == ["alertmanager", "basic-auth-plugin", "gateway", "prometheus"]
    for o in objects:
        if o["kind"] == "Service":
            assert o["spec"].get("type", "ClusterIP") == "ClusterIP", f"{o['metadata']['name']} is exposed as {o['spec']['type']}"


def test_gateway_and_faas_netes_as_configured(objects):
    c = containers(by(objects, "Deployment", "gateway"))
    assert set(c) == {"gateway", "faas-netes"}, "faas-netes runs beside the gateway, in its pod"
    g, n = env(c["gateway"]), env(c["faas-netes"])
    assert g["basic_auth"] == "true" and g["auth_proxy_url"] == "http://basic-auth-plugin.openfaas:8080/validate"
    assert g["scale_from_zero"] == "true" and g["functions_provider_url"] == "http://127.0.0.1:8081/"
    assert "faas_nats_address" not in g
    assert n["function_namespace"] == "openfaas-fn" and n["image_pull_policy"] == "IfNotPresent"
    pins = {l.split("\t")[0]: l.split("\t")[2][:12] for l in (ROOT / "deploy/shared/pins.tsv").read_text().splitlines()
            if l and not l.startswith("#") and not l.startswith("name\t")}
    assert c["gateway"]["image"] == "ko.local/openfaas/gateway:" + pins["openfaas-faas-2022"]
    assert c["faas-netes"]["image"] == "ko.local/openfaas/faas-netes:" + pins["openfaas-faas-netes-2022"]
    assert containers(by(objects, "Deployment", "basic-auth-plugin"))["basic-auth-plugin"]["image"] == "ko.local/openfaas/basic-auth:" + pins["openfaas-faas-2022"]
    for name in ("gateway", "faas-netes"):
        assert c[name]["imagePullPolicy"] == "Never"


def test_autoscaling_rule_and_its_receiver(objects):
    prom = yaml.safe_load(by(objects, "ConfigMap", "prometheus-config")["data"]["alert.rules.yml"])
    rules = {r["alert"]: r for g in prom["groups"] for r in g["rules"]}
    assert "APIHighInvocationRate" in rules and "gateway_function_invocation_total" in rules["APIHighInvocationRate"]["expr"]
    am = yaml.safe_load(by(objects, "ConfigMap", "alertmanager-config")["data"]["alertmanager.yml"])
    urls = [w["url"] for r in am["receivers"] for w in r.get("webhook_configs", [])]
    assert urls == ["http://gateway.openfaas:8080/system/alert"]


def test_basic_auth_secret_generated(objects):
    s = by(objects, "Secret", "basic-auth")
    data = s.get("data") or s.get("stringData")
    assert data and data.get("basic-auth-user") and data.get("basic-auth-password"), "no generated credentials"


def test_prometheus_and_alertmanager_built_here(objects):
    paths = (ROOT / "deploy/shared/prometheus-paths.sh").read_text()
    version = lambda k: next(l.split("=")[1].split()[0] for l in paths.splitlines() if l.startswith(k + "="))
    for name, key in (("prometheus", "PROMETHEUS_MODULE_VERSION"), ("alertmanager", "ALERTMANAGER_VERSION")):
        c = containers(by(objects, "Deployment", name))[name]
        assert c["image"] == f"ko.local/prometheus/{name}:{version(key)}", c["image"]
        assert c["imagePullPolicy"] == "Never"


def test_the_studys_alert_in_the_rendered_chart():
    """deploy/openfaas/alert.py on what Helm renders (deploy/openfaas/up.sh with OPENFAAS_ALERT_*): the objects
    parse and the two ConfigMaps hold the study's alert (seed 003's footnote 11)."""
    import alert
    r = subprocess.run(["bash", str(ROOT / "deploy/openfaas/render.sh")], capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-2000:]
    objs = [d for d in yaml.safe_load_all(alert.apply(r.stdout, "10", "2s")) if d]
    prom = by(objs, "ConfigMap", "prometheus-config")["data"]
    rule = [x for g in yaml.safe_load(prom["alert.rules.yml"])["groups"] for x in g["rules"] if x["alert"] == "APIHighInvocationRate"][0]
    assert rule["expr"].endswith("> 10") and rule["for"] == "2s"
    assert yaml.safe_load(prom["prometheus.yml"])["global"]["evaluation_interval"] == "2s"
    route = yaml.safe_load(by(objs, "ConfigMap", "alertmanager-config")["data"]["alertmanager.yml"])["route"]
    assert (route["group_wait"], route["group_interval"], route["repeat_interval"]) == ("2s", "2s", "2s")
