"""The Knative this tree builds and installs has a recorded pass of Knative's own conformance suites
(deploy/knative/conformance_key.py): each recorded row's key is its commit's, and a change to what decides the
Knative changes the key."""
import os
import pathlib
import sys

sys.path.insert(0, os.path.dirname(__file__))
import conformance_key as ck  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_trees_knative_has_a_recorded_conformance_pass():
    k = ck.key()
    rows = [r for r in ck.passes() if r["key"] == k]
    assert rows, (f"no recorded pass of Knative's conformance suites for the key {k} of this tree's Knative "
                  "(deploy/knative/{build,up,conformance}.sh, conformance-known.tsv, net-kourier's pin or the versions "
                  "changed): run make test-real-knative, which records one in deploy/knative/conformance-passes.tsv")
    for r in rows:
        assert (ROOT / r["evidence"]).is_dir(), f"{r['evidence']}: no such evidence"


def test_each_recorded_key_is_its_commits():
    for r in ck.passes():
        if r["commit"].endswith("-dirty"):
            continue
        assert ck.key(r["commit"]) == r["key"], f"row of {r['commit']}: the key there is {ck.key(r['commit'])}"


def test_the_key_follows_what_decides_the_knative():
    files = {p: (ROOT / p).read_text() for p in ck.WHOLE + ["deploy/shared/pins.tsv", "deploy/knative/paths.sh"]}
    base = ck.key(read=lambda p, rev: files[p])
    for p, change in [("deploy/knative/up.sh", "# a changed install\n"), ("deploy/knative/conformance-known.tsv", "x\ty\tz\n")]:
        changed = dict(files, **{p: files[p] + change})
        assert ck.key(read=lambda q, rev: changed[q]) != base, p
    bumped = dict(files, **{"deploy/knative/paths.sh": files["deploy/knative/paths.sh"].replace("ENVOY_VERSION=1.40.0", "ENVOY_VERSION=1.41.0")})
    assert ck.key(read=lambda q, rev: bumped[q]) != base
    # A comment or a cache note in paths.sh is not the Knative.
    noted = dict(files, **{"deploy/knative/paths.sh": files["deploy/knative/paths.sh"] + "# a note\n"})
    assert ck.key(read=lambda q, rev: noted[q]) == base


def test_record_appends_the_trees_key(tmp_path):
    p = tmp_path / "passes.tsv"
    p.write_text(ck.HEADER)
    ck.record("ingress (whole)", "docs/evidence/x", path=p)
    (row,) = ck.passes(p)
    assert row["key"] == ck.key() and row["suites"] == "ingress (whole)" and row["evidence"] == "docs/evidence/x"
