"""scripts/components.sh: make test's background builds. A tier awaits only the components it runs while the rest
build on (await NAME...), never waits on builds that ended (failed, or killed) or on none at all, and wait joins
them, failing with their exit status. The chain here is a stand-in (FB_COMPONENTS_CHAIN) that marks components
built at known times, as scripts/components-chain.sh does after each build."""
import os
import pathlib
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMPONENTS = str(ROOT / "scripts" / "components.sh")


def stand_in(tmp_path, body):
    """A chain script: DONE is $1, as scripts/components-chain.sh's."""
    chain = tmp_path / "chain.sh"
    chain.write_text("#!/usr/bin/env bash\nDONE=$1\n" + body)
    chain.chmod(0o755)
    env = dict(os.environ, FB_COMPONENTS_DIR=str(tmp_path / "cache"), FB_COMPONENTS_CHAIN=str(chain))
    return env


def components(env, *args, timeout=30):
    return subprocess.run([COMPONENTS, *args], capture_output=True, text=True, timeout=timeout, env=env)


def test_a_tier_waits_for_its_components_only(tmp_path):
    env = stand_in(tmp_path, "sleep 0.5; echo kube >> $DONE; sleep 4; echo knative >> $DONE\n")
    assert components(env, "start", str(os.getpid())).returncode == 0
    t = time.monotonic()
    r = components(env, "await", "kube")
    waited = time.monotonic() - t
    assert r.returncode == 0, r.stderr
    done = (tmp_path / "cache" / "components.done").read_text().split()
    assert done == ["kube"], f"await kube returned with {done} built: it waited for more than kube"
    assert 0.3 < waited < 4, waited
    assert "waited" in r.stdout and "for kube" in r.stdout
    r = components(env, "await", "knative")
    assert r.returncode == 0 and (tmp_path / "cache" / "components.done").read_text().split() == ["kube", "knative"]
    r = components(env, "wait")
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_failed_chain_ends_every_wait(tmp_path):
    env = stand_in(tmp_path, "echo kube >> $DONE; sleep 0.5; echo 'openfaas build: broken'; exit 7\n")
    assert components(env, "start", str(os.getpid())).returncode == 0
    # openfaas never comes: await returns once the chain has ended (the tier's own build call then fails with the
    # build's words), and wait says the chain failed, with its log.
    r = components(env, "await", "openfaas", timeout=20)
    assert r.returncode == 0, r.stderr
    r = components(env, "wait")
    assert r.returncode == 7 and "openfaas build: broken" in r.stdout and "failed (exit 7" in r.stderr


def test_without_background_builds_await_returns_at_once(tmp_path):
    env = stand_in(tmp_path, "exit 0\n")
    t = time.monotonic()
    assert components(env, "await", "kube").returncode == 0 and time.monotonic() - t < 5
    # A pid file a killed make left, its number now another process's (this test's): not builds, not waited for.
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "components.pid").write_text(str(os.getpid()))
    t = time.monotonic()
    assert components(env, "await", "kube").returncode == 0 and time.monotonic() - t < 5
    assert components(env, "await").returncode == 2
