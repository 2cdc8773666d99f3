"""Provenance of the figures the docs cite: a run cited with a commit must carry that commit in its
manifest; a run whose manifest says "unknown" (a binary built without the stamp) may not be cited
with a commit at all; and a paragraph that cites evidence holding a run from an unclean build (a commit
"unknown", or "-dirty": built with uncommitted changes) says so where the figure is read (issue 59)."""
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN_ID = r"[a-z0-9][a-z0-9-]*-\d{8}T\d{6}-[0-9a-f]{6}"
CITED = re.compile(rf"({RUN_ID})[^|;\n]{{0,40}}?,\s*commit\s+`?([0-9a-f]{{7,40}})\b")


def evidence_runs(root=ROOT):
    """(run directory, run id, the commit its manifest records) for every run under docs/evidence."""
    for p in (root / "docs/evidence").rglob("manifest.json"):
        m = json.loads(p.read_text())
        yield p.parent, m.get("run_id"), ((m.get("fingerprint") or {}).get("faasbench") or {}).get("commit", "unknown")


def manifests():
    """Run id -> the commit its manifest records, for every run under docs/evidence."""
    return {rid: commit for _, rid, commit in evidence_runs() if rid}


def docs():
    """The documents whose figures are checked."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md")), *sorted((ROOT / "bench").glob("**/*.md"))]


def citations(text):
    return CITED.findall(text)


def problems():
    known = manifests()
    out = []
    for doc in docs():
        for rid, cited in citations(doc.read_text()):
            have = known.get(rid)
            name = doc.relative_to(ROOT)
            if have is None:
                out.append(f"{name}: {rid} cited with commit {cited}, but no manifest of it is under docs/evidence")
            elif have == "unknown" or not (have.startswith(cited) or cited.startswith(have.removesuffix("-dirty"))):
                out.append(f"{name}: {rid} cited with commit {cited}, its manifest says {have!r}")
    return out


EVIDENCE_PATH = re.compile(r"docs/evidence/[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*")
SAYS_UNCLEAN = re.compile(r"dirty|uncommitted|`unknown`|untraceable", re.I)


def unclean_runs(root=ROOT):
    """Run directory (relative to root) -> its manifest's commit, for the runs not built from a clean commit."""
    return {d.relative_to(root).as_posix(): commit for d, _, commit in evidence_runs(root)
            if commit == "unknown" or commit.endswith("-dirty")}


def unclean_citations(text, unclean):
    """(cited path, commits) for each paragraph of text that cites evidence holding an unclean run (the path
    itself, or a directory above it) without saying so."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        if SAYS_UNCLEAN.search(para):
            continue
        for cited in sorted(set(EVIDENCE_PATH.findall(para))):
            cited = cited.rstrip("./")
            if cited == "docs/evidence":
                continue  # "a docs/evidence/... folder": a pattern, not a citation
            hits = sorted({c for d, c in unclean.items() if d == cited or d.startswith(cited + "/")})
            if hits:
                out.append((cited, hits))
    return out


def test_a_figure_from_an_unclean_build_says_so():
    unclean = unclean_runs()
    bad = []
    for doc in docs():
        for cited, commits in unclean_citations(doc.read_text(), unclean):
            bad.append(f"{doc.relative_to(ROOT)}: cites {cited}, which holds runs built from {', '.join(c[:12] for c in commits)}, "
                       "and its paragraph does not say so (dirty, uncommitted, `unknown`)")
    assert bad == []


def test_the_unclean_pattern():
    unclean = {"docs/evidence/x/run-a": "abc-dirty", "docs/evidence/y/run": "unknown"}
    assert unclean_citations("figures in docs/evidence/x (summary.json).", unclean) == [("docs/evidence/x", ["abc-dirty"])]
    assert unclean_citations("docs/evidence/x/run-b/ only, or a `docs/evidence/...` folder.", unclean) == []
    assert unclean_citations("docs/evidence/x/run-a/summary.json, a dirty build.", unclean) == []
    assert unclean_citations("docs/evidence/y/run/.\n\nthe manifest says `unknown`.", unclean) == [("docs/evidence/y/run", ["unknown"])]


def test_the_pattern_finds_a_citation():
    assert citations("`bin/faasbench run x` (133 s), seed003-http-workload-20261125T012514-086d99, commit 7c73f2a;") == [
        ("seed003-http-workload-20261125T012514-086d99", "7c73f2a")]


def test_every_cited_commit_is_the_manifests():
    assert problems() == []
