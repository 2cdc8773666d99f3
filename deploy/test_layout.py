"""The layout holds (deploy/README.md, docs/architecture.md): every platform of the Makefile's PLATFORMS has
its folder with the verbs, every platform folder with a node tier is in the list, every script says what it is
and runs from the repository root, internal/ holds leaves only, and no Go file is over 500 lines."""
import json
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
VERBS = ["build.sh", "up.sh", "down.sh", "node-test.sh", "test-real.sh", "options.sh"]
FILES = ["seed-defaults"]
# A verb a platform lacks, with the reason (deploy/README.md says it too).
MISSING = {("knative", "down.sh"): "the last platform on the node: the node's own down.sh removes it"}
MAX_GO_LINES = 500


def platforms(makefile=None):
    text = makefile if makefile is not None else (ROOT / "Makefile").read_text()
    m = re.search(r"^PLATFORMS\s*:=\s*(.+)$", text, re.M)
    assert m, "the Makefile has no PLATFORMS := line"
    return m.group(1).split()


def missing_verbs(root, names):
    bad = []
    for p in names:
        for v in VERBS:
            f = root / "deploy" / p / v
            if (p, v) in MISSING:
                continue
            if not (f.is_file() and os.access(f, os.X_OK)):
                bad.append(f"deploy/{p}/{v}")
        bad += [f"deploy/{p}/{n}" for n in FILES if not (root / "deploy" / p / n).is_file()]
    return bad


def unlisted(root, names):
    return sorted(d.name for d in (root / "deploy").iterdir() if (d / "node-test.sh").exists() and d.name not in names)


def script_faults(root):
    """Each script's first comment line names it by its path from the root, and a script that changes to the
    root climbs as many levels as it is deep."""
    bad = []
    for f in sorted((root / "deploy").rglob("*.sh")):
        rel = f.relative_to(root).as_posix()
        lines = f.read_text().splitlines()
        first = next((l for l in lines if l.startswith("#") and not l.startswith("#!")), "")
        if not first.startswith(f"# {rel}"):
            bad.append(f"{rel}: its first comment is not '# {rel} ...': {first[:60]!r}")
        depth = len(f.relative_to(root).parts) - 1
        for m in re.finditer(r'cd "\$\(dirname "\$0"\)((?:/\.\.)*)"', f.read_text()):
            if m.group(1).count("..") != depth:
                bad.append(f"{rel}: cd \"$(dirname \"$0\"){m.group(1)}\" does not reach the root ({depth} levels up)")
    return bad


def long_go_files(root):
    out = subprocess.run(["git", "ls-files", "*.go"], cwd=root, capture_output=True, text=True, check=True).stdout
    bad = []
    for name in out.split():
        n = sum(1 for _ in open(root / name, encoding="utf-8"))
        if n > MAX_GO_LINES:
            bad.append(f"{name}: {n} lines")
    return bad


def test_every_platform_in_the_list_has_its_verbs():
    assert platforms(), "PLATFORMS is empty"
    assert missing_verbs(ROOT, platforms()) == []


def test_every_platform_folder_with_a_node_tier_is_in_the_list():
    assert unlisted(ROOT, platforms()) == []


def test_the_checks_see_a_platform_without_its_folder_and_a_folder_without_its_word(tmp_path):
    (tmp_path / "deploy" / "a").mkdir(parents=True)
    for v in VERBS:
        f = tmp_path / "deploy" / "a" / v
        f.write_text("#!/bin/sh\n")
        f.chmod(0o755)
    (tmp_path / "deploy" / "a" / "seed-defaults").write_text("rule:x\n")
    assert missing_verbs(tmp_path, ["a", "b"]) == [f"deploy/b/{v}" for v in VERBS + FILES]
    assert unlisted(tmp_path, ["b"]) == ["a"]
    assert platforms("X := 1\nPLATFORMS := a b\n") == ["a", "b"]


def test_every_script_names_itself_and_reaches_the_root():
    assert script_faults(ROOT) == []


def test_the_script_check_sees_a_wrong_name_and_a_wrong_depth(tmp_path):
    d = tmp_path / "deploy" / "x"
    d.mkdir(parents=True)
    (d / "up.sh").write_text('#!/bin/sh\n# deploy/x/up.sh: up\ncd "$(dirname "$0")/.."\n')
    (d / "down.sh").write_text('#!/bin/sh\n# x-down.sh: down\ncd "$(dirname "$0")/../.."\n')
    faults = script_faults(tmp_path)
    assert len(faults) == 2
    assert "deploy/x/up.sh: cd" in faults[0] or "deploy/x/up.sh: cd" in faults[1]
    assert any(f.startswith("deploy/x/down.sh: its first comment") for f in faults)


def test_no_go_file_is_over_500_lines():
    assert long_go_files(ROOT) == []


def test_internal_holds_leaves_only():
    """internal/ is the bottom of the house: its packages import no package of faasbench outside internal/."""
    try:
        out = subprocess.run(["go", "list", "-tags", "kube,realnode,nuclioproc", "-json", "./internal/..."], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        pytest.fail("go is not on PATH: the layout check needs it")
    bad = []
    for pkg in json.loads("[" + re.sub(r"}\s*{", "},{", out) + "]"):
        for imp in pkg.get("Imports", []) + pkg.get("TestImports", []):
            if imp.startswith("github.com/faasbench/faasbench/") and not imp.startswith("github.com/faasbench/faasbench/internal/"):
                bad.append(f"{pkg['ImportPath']} imports {imp}")
    assert bad == []


def seed_default_faults(root, registered):
    """Each rule:ID[,ID...] line of a platform's seed-defaults names registered rules, of one spec and settings (one
    run answers them: scripts/repro/run.py), at most three."""
    by_id = {r["id"]: r for r in registered}
    bad = []
    for f in sorted((root / "deploy").glob("*/seed-defaults")):
        for line in f.read_text().splitlines():
            if not line.startswith("rule:"):
                continue
            ids = line[len("rule:"):].split(",")
            where = f"{f.relative_to(root)}: {line}"
            unknown = [i for i in ids if i not in by_id]
            if unknown:
                bad.append(f"{where}: not registered: {', '.join(unknown)}")
            elif len({(by_id[i]["spec"], tuple(by_id[i].get("set") or [])) for i in ids}) > 1:
                bad.append(f"{where}: the rules run different specs or settings")
            elif len(ids) > 3:
                bad.append(f"{where}: more than three rules for one run")
    return bad


def test_the_seed_defaults_name_registered_rules_one_run_answers():
    import sys
    sys.path.insert(0, str(ROOT / "scripts" / "repro"))
    import rules
    assert seed_default_faults(ROOT, rules.load()["rules"]) == []


def test_the_seed_defaults_check_sees_an_unknown_rule_and_two_specs(tmp_path):
    (tmp_path / "deploy" / "a").mkdir(parents=True)
    (tmp_path / "deploy" / "a" / "seed-defaults").write_text("# x\nrule:r1,r9\nrule:r1,r2\nrule:r1,r3\n")
    reg = [{"id": "r1", "spec": "s.yaml"}, {"id": "r2", "spec": "t.yaml"}, {"id": "r3", "spec": "s.yaml", "set": ["a=1"]}]
    got = seed_default_faults(tmp_path, reg)
    assert len(got) == 3 and "not registered: r9" in got[0] and "different specs" in got[1] and "different specs" in got[2]
