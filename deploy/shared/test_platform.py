"""deploy/shared/platform.sh: the start every platform's up.sh and down.sh share. Each case sources it in a bash of
its own, from the repository's root as the scripts do, with kubectl (K) and containerd's ctr replaced by stand-ins
that record their calls."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLATFORMS_WITH_DOWN = ["fission", "kubeless", "nuclio", "openfaas", "openwhisk"]


def bash(script, tmp_path, path_dir=None):
    env = {"PATH": f"{path_dir}:/usr/bin:/bin" if path_dir else "/usr/bin:/bin", "HOME": str(tmp_path),
           "FAASBENCH_CACHE": str(tmp_path / "cache")}
    # As the scripts do: deploy/kube/paths.sh first (FB_CACHE, fb_cache_used), then platform.sh.
    r = subprocess.run(["bash", "-c", "set -euo pipefail\n. deploy/kube/paths.sh\n. deploy/shared/platform.sh\n" + script],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout, r.stderr


def node(tmp_path):
    d = tmp_path / "node"
    (d / "logs").mkdir(parents=True)
    (d / "node.env").write_text(f"NODE_IP=10.77.0.2\nCONTAINERD_SOCK={d}/containerd.sock\n")
    return d


def test_up_without_a_node_fails_naming_the_script_and_the_directory(tmp_path):
    code, out, err = bash(f'platform_up demo-up "{tmp_path}/none" demo; echo after', tmp_path)
    assert code == 1 and out == ""
    assert f"demo-up: no node in {tmp_path}/none (deploy/node/up.sh DIR)" in err


def test_up_reads_the_node_and_steps_name_the_script_and_the_time(tmp_path):
    d = node(tmp_path)
    code, out, err = bash(f'platform_up demo-up "{d}" demo; step "built"; echo "ip=$NODE_IP"; echo "t=$(elapsed)"', tmp_path)
    assert code == 0, err
    assert re.search(r"^demo-up: built at \d+\.\d s$", out, re.M), out
    assert "ip=10.77.0.2" in out
    assert re.search(r"^t=\d+\.\d$", out, re.M), out


def test_down_refuses_what_was_not_installed(tmp_path):
    d = node(tmp_path)
    code, _, err = bash(f'platform_down demo-down "{d}" demo/demo.yaml; echo after', tmp_path)
    assert code == 1 and f"demo-down: nothing is installed from {d} (no {d}/demo/demo.yaml)" in err
    (d / "demo").mkdir()
    (d / "demo" / "demo.yaml").write_text("{}")
    code, out, err = bash(f'platform_down demo-down "{d}" demo/demo.yaml; echo "ip=$NODE_IP"', tmp_path)
    assert code == 0 and "ip=10.77.0.2" in out, err


def test_fail_describes_the_namespace_and_what_the_script_adds_then_exits_1(tmp_path):
    d = node(tmp_path)
    script = f'''platform_up demo-up "{d}" demo-ns
K() {{ echo "kubectl $*"; }}
fail_more() {{ echo "more: controller log"; }}
fail "the controller did not start"
echo after'''
    code, out, err = bash(script, tmp_path)
    assert code == 1 and "after" not in out + err
    lines = err.splitlines()
    assert lines[0] == "demo-up: the controller did not start"
    assert "kubectl -n demo-ns get pods -o wide" in err
    assert "kubectl -n demo-ns get events --sort-by=.lastTimestamp" in err
    assert lines[-1] == "more: controller log"


def test_import_images_imports_each_and_names_the_log_of_a_refused_one(tmp_path):
    d = node(tmp_path)
    fake = tmp_path / "bin"
    fake.mkdir()
    calls = tmp_path / "calls"
    (fake / "ctr").write_text(f'#!/bin/bash\necho "$*" >> {calls}\ncase "$*" in *bad.tar) echo refused; exit 1;; esac\n')
    (fake / "ctr").chmod(0o755)
    code, out, err = bash(f'platform_up demo-up "{d}" demo\nK() {{ :; }}\nimport_images demo /x/a.tar /x/b.tar; echo imported', tmp_path, fake)
    assert code == 0 and "imported" in out, err
    assert calls.read_text().splitlines() == [f"--address {d}/containerd.sock -n k8s.io images import /x/{t}" for t in ("a.tar", "b.tar")]
    code, out, err = bash(f'platform_up demo-up "{d}" demo\nK() {{ :; }}\nimport_images demo /x/a.tar /x/bad.tar /x/c.tar; echo imported', tmp_path, fake)
    assert code == 1 and "imported" not in out
    assert "demo-up: containerd could not import /x/bad.tar (logs/import-demo-bad.log)" in err
    assert (d / "logs" / "import-demo-bad.log").read_text() == "refused\n"
    assert "c.tar" not in calls.read_text()


def test_every_platform_script_starts_with_it():
    """Every platform's up.sh and down.sh begin with platform.sh, not a copy of it (Knative has no down.sh: the
    node's removes it)."""
    scripts = [f"deploy/{p}/up.sh" for p in PLATFORMS_WITH_DOWN + ["knative"]] + [f"deploy/{p}/down.sh" for p in PLATFORMS_WITH_DOWN]
    bad = []
    for s in scripts:
        text = (ROOT / s).read_text()
        verb = "platform_up" if s.endswith("up.sh") else "platform_down"
        if ". deploy/shared/platform.sh" not in text or not re.search(rf"^{verb} \S+ \"\$DIR\"", text, re.M):
            bad.append(f"{s}: does not begin with {verb}")
        if re.search(r"^(K|step|fail)\(\) \{", text, re.M):
            bad.append(f"{s}: defines its own K, step or fail")
    assert bad == []


def test_import_images_notes_the_cache_entries_it_imports_from(tmp_path):
    """An image imported from the cache notes its entry as named now (deploy/shared/cache_prune.py keeps it);
    a tar outside the cache notes nothing."""
    d = node(tmp_path)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ctr").write_text("#!/bin/bash\nexit 0\n")
    (fake / "ctr").chmod(0o755)
    cache = tmp_path / "cache"
    (cache / "demo-0123456789ab" / "images").mkdir(parents=True)
    (cache / "images").mkdir()
    code, out, err = bash(f'platform_up demo-up "{d}" demo\nK() {{ :; }}\n'
                          f'import_images demo "$FB_CACHE/demo-0123456789ab/images/a.tar" "$FB_CACHE/images/w-go-ba9876543210.tar" /x/c.tar', tmp_path, fake)
    assert code == 0, err
    assert (cache / ".used" / "demo-0123456789ab").is_file()
    assert (cache / "images" / ".used" / "w-go-ba9876543210.tar").is_file()
    # besides what deploy/kube/paths.sh names (Kubernetes, CoreDNS, the registry), only the entry imported from
    notes = {p.name for p in (cache / ".used").iterdir() if not p.name.startswith(("kube-", "coredns-", "registry-"))}
    assert notes == {"demo-0123456789ab"}


def test_ingress_up_starts_traefik_for_the_namespace_and_gives_its_url(tmp_path):
    d = node(tmp_path)
    # The script is stood in for by a bash function of its path's name (bash allows the slashes).
    script = f'''platform_up demo-up "{d}" demo
deploy/shared/traefik-up.sh() {{ echo "up $1 $2"; printf 'TRAEFIK_URL=http://traefik.traefik.svc.cluster.local\\nTRAEFIK_VERSION=v3.6.12\\n' > "$1/traefik.env"; }}
ingress_up default
echo "url=$INGRESS_URL"'''
    code, out, err = bash(script, tmp_path)
    assert code == 0, err
    assert re.search(r"^demo-up: ingress: Traefik v3\.6\.12 at http://traefik\.traefik\.svc\.cluster\.local "
                     r"\(the ingresses of namespace default\) at \d+\.\d s$", out, re.M), out
    assert out.rstrip().endswith("url=http://traefik.traefik.svc.cluster.local")
    assert (d / "logs" / "traefik-up.log").read_text() == f"up {d} default\n"
    failing = f'''platform_up demo-up "{d}" demo
K() {{ :; }}
deploy/shared/traefik-up.sh() {{ echo "traefik-up: deployment traefik did not become available in 120 s" >&2; return 1; }}
ingress_up nuclio
echo after'''
    code, out, err = bash(failing, tmp_path)
    assert code == 1 and "after" not in out
    assert "traefik-up: deployment traefik did not become available in 120 s" in err
    assert "demo-up: the ingress (Traefik) did not start" in err
