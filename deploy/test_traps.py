"""A script's clean-up on exit runs whole. Under `set -e` a command that fails inside an EXIT trap ends the trap
there: `trap 'deploy/kube/down.sh "$DIR"; rm -rf "$DIR"' EXIT` left the control plane's directory (71 MB) in /tmp
when a TERM ended make test during the kube tier and the stop found its processes still going. Every command of
an EXIT trap but the last must say what happens when it fails (`|| ...`), or be one that cannot (rm -f, rm -rf)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
TRAP = re.compile(r"""trap\s+'([^']*)'\s+(?:[A-Z ]*\b)?EXIT\b""")
SAFE = re.compile(r"^(rm -rf?|rm -f|echo|:)\b")


def unguarded(text):
    """The commands of text's EXIT traps, but the last of each, that may fail and stop the rest under set -e (in
    any script: a library such as deploy/node/real-lib.sh is sourced by scripts that set it). A trap with a loop
    or a group ({ }, for) is read by a person, not here."""
    bad = []
    for body in TRAP.findall(text):
        if "{" in body or re.search(r"\bfor\b", body):
            continue
        cmds = [c.strip() for c in body.split(";") if c.strip()]
        for c in cmds[:-1]:
            if "||" in c or SAFE.match(c) or re.match(r"^\w+=", c) or c.startswith("[ "):
                continue
            bad.append(c)
    return bad


def test_the_check_finds_an_unguarded_trap():
    assert unguarded("set -euo pipefail\ntrap 'deploy/kube/down.sh \"$DIR\"; rm -rf \"$DIR\"' EXIT\n") == ['deploy/kube/down.sh "$DIR"']
    assert unguarded("set -euo pipefail\ntrap 'deploy/kube/down.sh \"$DIR\" || true; rm -rf \"$DIR\"' EXIT\n") == []
    assert unguarded("trap 'x=1; rm -rf \"$d\"' EXIT\n") == []


def test_every_exit_trap_runs_whole():
    scripts = [p for p in ROOT.rglob("*.sh") if ".cache" not in p.parts and ".git" not in p.parts]
    scripts.append(ROOT / ".ci" / "run")
    bad = {str(p.relative_to(ROOT)): b for p in scripts if (b := unguarded(p.read_text()))}
    assert not bad, f"EXIT traps whose failing command would skip the rest of the clean-up: {bad}"
