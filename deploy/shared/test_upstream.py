"""deploy/shared/upstream.sh: a pinned source tree from an archive whose sha256 matches, or from a clone of the
pinned commit; refused, with the reason, when either does not match. Run by make test (python tests)."""
import hashlib
import os
import subprocess
import tarfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "upstream.sh"


def run(env, *args):
    return subprocess.run(["bash", str(SCRIPT), *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


def make_archive(tmp, prefix):
    src = tmp / "src" / prefix
    src.mkdir(parents=True)
    (src / "main.go").write_text("package main\n")
    arch = tmp / "archives" / f"{prefix}.tar.gz"
    arch.parent.mkdir(exist_ok=True)
    with tarfile.open(arch, "w:gz") as t:
        t.add(src, arcname=prefix)
    return arch


def pins(tmp, rows):
    p = tmp / "pins.tsv"
    p.write_text("# test pins\nname\trepository\tcommit\tsha256\tarchive\n" + "".join("\t".join(r) + "\n" for r in rows))
    return p


def test_archive_checked_extracted_once(tmp_path):
    commit = "a" * 40
    arch = make_archive(tmp_path, "thing-aaaaaaaaaaaa")
    sha = hashlib.sha256(arch.read_bytes()).hexdigest()
    env = {"FB_UPSTREAM_PINS": str(pins(tmp_path, [("thing", "https://example.invalid/thing", commit, sha, arch.name)])),
           "FAASBENCH_UPSTREAM": str(arch.parent), "FAASBENCH_CACHE": str(tmp_path / "cache")}
    r = run(env, "thing")
    assert r.returncode == 0, r.stderr
    tree = Path(r.stdout.strip())
    assert tree == tmp_path / "cache" / "upstream" / "thing-aaaaaaaaaaaa"
    assert (tree / "main.go").read_text() == "package main\n"
    assert "sha256 " + sha in (tree / ".faasbench-source").read_text()
    # A second call reuses the tree without reading the archive again (here: removed).
    arch.unlink()
    r2 = run(env, "thing")
    assert r2.returncode == 0 and r2.stdout.strip() == str(tree), r2.stderr


def test_archive_with_another_sha256_is_refused(tmp_path):
    arch = make_archive(tmp_path, "thing-bbbbbbbbbbbb")
    env = {"FB_UPSTREAM_PINS": str(pins(tmp_path, [("thing", "https://example.invalid/thing", "b" * 40, "0" * 64, arch.name)])),
           "FAASBENCH_UPSTREAM": str(arch.parent), "FAASBENCH_CACHE": str(tmp_path / "cache")}
    r = run(env, "thing")
    assert r.returncode == 1
    assert "sha256" in r.stderr and "0" * 64 in r.stderr and "refusing" in r.stderr and arch.name in r.stderr
    assert not (tmp_path / "cache" / "upstream" / "thing-bbbbbbbbbbbb").exists()
    assert [p.name for p in (tmp_path / "cache" / "upstream").iterdir() if not p.name.startswith(".lock")] == []


def test_unknown_name_exits_2_naming_it(tmp_path):
    env = {"FB_UPSTREAM_PINS": str(pins(tmp_path, [("thing", "r", "c" * 40, "0" * 64, "a.tar.gz")])), "FAASBENCH_CACHE": str(tmp_path / "cache")}
    r = run(env, "nothing")
    assert r.returncode == 2 and '"nothing"' in r.stderr and "thing" in r.stderr


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True)


def test_clone_of_the_pinned_commit_without_an_archive(tmp_path):
    # The repository is a local one (the network rule: no other address in a test).
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / "f.txt").write_text("one\n")
    git("add", ".", cwd=repo)
    git("commit", "-qm", "one", cwd=repo)
    first = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    (repo / "f.txt").write_text("two\n")
    git("commit", "-qam", "two", cwd=repo)
    empty = tmp_path / "no-archives"
    empty.mkdir()
    env = {"FB_UPSTREAM_PINS": str(pins(tmp_path, [("thing", "file://" + str(repo), first, "0" * 64, "thing.tar.gz"),
                                                    ("gone", "file://" + str(repo), "d" * 40, "0" * 64, "gone.tar.gz")])),
           "FAASBENCH_UPSTREAM": str(empty), "FAASBENCH_CACHE": str(tmp_path / "cache")}
    r = run(env, "thing")
    assert r.returncode == 0, r.stderr
    tree = Path(r.stdout.strip())
    assert (tree / "f.txt").read_text() == "one\n"  # the pinned commit, not the branch's head
    assert not (tree / ".git").exists()
    assert first in (tree / ".faasbench-source").read_text()
    r = run(env, "gone")
    assert r.returncode == 1 and "could not fetch" in r.stderr and "d" * 40 in r.stderr
