"""deploy/shared/cache_prune.py: which entries of the build cache it removes, and that it removes nothing else."""
import fcntl
import os
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cache_prune  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
DAY = 86400


def entry(path, age_days, noted_days=None, size=10):
    """A cache entry (a folder with a file of size bytes, or a .tar file) last changed age_days ago, with a note
    noted_days ago when given."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".tar"):
        path.write_bytes(b"x" * size)
    else:
        (path / "bin").mkdir(parents=True)
        (path / "bin" / "tool").write_bytes(b"x" * size)
    t = time.time() - age_days * DAY
    os.utime(path, (t, t))
    if noted_days is not None:
        note = path.parent / ".used" / path.name
        note.parent.mkdir(exist_ok=True)
        note.write_text("")
        t = time.time() - noted_days * DAY
        os.utime(note, (t, t))
    return path


def test_family_is_the_name_before_its_version_or_key():
    assert cache_prune.family("kube-1.34.4-etcd-3.6.16-kwok-0.8.0-3adbbf446539") == "kube"
    assert cache_prune.family("kourier-8ace45c7334f-envoy-1.40.0-02a26f11538e") == "kourier"
    assert cache_prune.family("prometheus-v0.316.0-alertmanager-v0.35.0-38b4c9dbdeca") == "prometheus"
    assert cache_prune.family("knative-conformance-0.42.2-62b99f1123e0") == "knative-conformance"
    assert cache_prune.family("hello-python-openfaas-classic-5007f18b04db.tar") == "hello-python-openfaas-classic"
    assert cache_prune.family("hello-python-openfaas-c879d1ebf224.tar") == "hello-python-openfaas"
    assert cache_prune.family("base-debian-bookworm-b9f77771fa47") == "base-debian-bookworm"


def run(cache, *args):
    r = subprocess.run([sys.executable, str(ROOT / "deploy/shared/cache_prune.py"), "--cache", str(cache), *args],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def test_only_old_entries_of_a_family_with_a_newer_one_go(tmp_path):
    c = tmp_path / "cache"
    old = entry(c / "kube-1.34.3-aaaaaaaaaaaa", 30)                            # old key, unnamed for 30 days: goes
    new = entry(c / "kube-1.34.4-bbbbbbbbbbbb", 1)                             # the family's newest: stays
    recent = entry(c / "coredns-1.14.6-cccccccccccc", 30, noted_days=2)        # old but named 2 days ago: stays
    entry(c / "coredns-1.14.6-dddddddddddd", 1)
    alone = entry(c / "openfaas-2022-eeeeeeeeeeee", 90)                        # alone in its family: stays
    shared = entry(c / "src", 90)                                              # no key: never touched
    img_old = entry(c / "images" / "agent-111111111111.tar", 20, size=3 << 20)  # images/ is pruned too
    img_new = entry(c / "images" / "agent-222222222222.tar", 10, noted_days=0)
    other = entry(c / "images" / "agent-go-333333333333.tar", 20)              # another family
    (c / "images" / "agent-111111111111.tar.lock").write_text("")
    code, out, err = run(c)
    assert code == 0, err
    assert "would remove kube-1.34.3-aaaaaaaaaaaa" in out and "would remove images/agent-111111111111.tar (3.0 MiB" in out
    assert "2 to remove" in out and "--yes removes them" in out
    assert old.exists() and img_old.exists(), "without --yes nothing is removed"
    code, out, err = run(c, "--yes")
    assert code == 0, err
    assert not old.exists() and not img_old.exists() and not (c / "images" / "agent-111111111111.tar.lock").exists()
    for kept in (new, recent, alone, shared, img_new, other):
        assert kept.exists(), kept
    assert "2 removed" in out
    code, out, err = run(c, "--yes")
    assert "0 removed" in out


def test_a_note_counts_over_the_entry_time_and_days_is_honoured(tmp_path):
    c = tmp_path / "cache"
    a = entry(c / "nuclio-aaaaaaaaaaaa", 1, noted_days=10)   # changed yesterday, but last named 10 days ago
    entry(c / "nuclio-bbbbbbbbbbbb", 5, noted_days=0)
    code, out, _ = run(c, "--days", "20")
    assert "0 to remove" in out
    code, out, _ = run(c, "--days", "9", "--yes")
    assert not a.exists() and "1 removed" in out and "last named" in out


def test_an_entry_being_built_is_kept(tmp_path):
    c = tmp_path / "cache"
    b = entry(c / "images" / "base-debian-bookworm-aaaaaaaaaaaa", 30)
    entry(c / "images" / "base-debian-bookworm-bbbbbbbbbbbb", 1)
    lock = c / "images" / "base-debian-bookworm-aaaaaaaaaaaa.lock"
    with open(lock, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        code, out, _ = run(c, "--yes")
    assert code == 0 and b.exists()
    assert "keep images/base-debian-bookworm-aaaaaaaaaaaa: its lock is held" in out
    code, out, _ = run(c, "--yes")
    assert not b.exists()


def test_a_symlink_entry_is_unlinked_never_followed(tmp_path):
    c = tmp_path / "cache"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("mine")
    c.mkdir()
    link = c / "helm-aaaaaaaaaaaa"
    link.symlink_to(outside)
    t = time.time() - 30 * DAY
    os.utime(link, (t, t), follow_symlinks=False)
    entry(c / "helm-bbbbbbbbbbbb", 1)
    code, out, err = run(c, "--yes")
    assert code == 0, err
    assert not link.is_symlink() and (outside / "keep").read_text() == "mine"


def test_bad_input_names_the_flag(tmp_path):
    code, _, err = run(tmp_path, "--days", "soon")
    assert code == 2 and "--days 'soon'" in err
    code, _, err = run(tmp_path, "--days", "-1")
    assert code == 2 and "--days '-1'" in err
    code, _, err = run(tmp_path / "none")
    assert code == 2 and "--cache" in err
    code, _, err = run("/")
    assert code == 2 and "--cache '/'" in err
