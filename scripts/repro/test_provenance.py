"""Provenance of the figures the docs cite: a run cited with a commit must carry that commit in its
manifest; a run whose manifest says "unknown" (a binary built without the stamp) may not be cited
with a commit at all."""
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN_ID = r"[a-z0-9][a-z0-9-]*-\d{8}T\d{6}-[0-9a-f]{6}"
CITED = re.compile(rf"({RUN_ID})[^|;\n]{{0,40}}?,\s*commit\s+`?([0-9a-f]{{7,40}})\b")


def manifests():
    """Run id -> the commit its manifest records, for every run under docs/evidence."""
    out = {}
    for p in (ROOT / "docs/evidence").rglob("manifest.json"):
        m = json.loads(p.read_text())
        rid = m.get("run_id")
        if rid:
            out[rid] = ((m.get("fingerprint") or {}).get("faasbench") or {}).get("commit", "unknown")
    return out


def citations(text):
    return CITED.findall(text)


def problems():
    known = manifests()
    out = []
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md")), *sorted((ROOT / "bench").glob("**/*.md"))]
    for doc in docs:
        for rid, cited in citations(doc.read_text()):
            have = known.get(rid)
            name = doc.relative_to(ROOT)
            if have is None:
                out.append(f"{name}: {rid} cited with commit {cited}, but no manifest of it is under docs/evidence")
            elif have == "unknown" or not (have.startswith(cited) or cited.startswith(have.removesuffix("-dirty"))):
                out.append(f"{name}: {rid} cited with commit {cited}, its manifest says {have!r}")
    return out


def test_the_pattern_finds_a_citation():
    assert citations("`bin/faasbench run x` (133 s), seed003-http-workload-20261125T012514-086d99, commit 7c73f2a;") == [
        ("seed003-http-workload-20261125T012514-086d99", "7c73f2a")]


def test_every_cited_commit_is_the_manifests():
    assert problems() == []
