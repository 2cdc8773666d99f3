"""make mutate's driver on a small repository of its own: a mutant its test catches is killed, one it does not
survives and is named, the score decides the exit, a stale mutant stops the run, and the tree is untouched."""
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import mutate  # noqa: E402
import testrepo  # noqa: E402

CODE = "def double(x):\n    return 2 * x\n\n\ndef unused(x):\n    return x + 1\n"
TEST = "from calc import double\n\n\ndef test_double():\n    assert double(3) == 6\n"


def repo(tmp_path):
    return testrepo.git_repo(tmp_path / "repo", {"calc.py": CODE, "test_calc.py": TEST})


def mutants(tmp_path, *ms):
    lines = ["mutants:"]
    for id_, find, replace in ms:
        lines += [f"  - id: {id_}", "    file: calc.py", f"    find: {find!r}", f"    replace: {replace!r}", "    py: [test_calc.py]"]
    p = tmp_path / "m.yaml"
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def test_killed_survived_and_the_score(tmp_path, capsys):
    r = repo(tmp_path)
    lst = mutants(tmp_path, ("times-three", "return 2 * x", "return 3 * x"), ("plus-two", "return x + 1", "return x + 2"))
    assert mutate.main(["--root", str(r), "--list", lst, "--min", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "killed   times-three" in out and "SURVIVED plus-two" in out
    assert "mutate: 1 of 2 killed (50 %)" in out and "survivor plus-two: calc.py: 'return x + 1' -> 'return x + 2'" in out
    assert mutate.main(["--root", str(r), "--list", lst, "--min", "0.9"]) == 1
    assert (r / "calc.py").read_text() == CODE  # the working tree is never touched


def test_a_stale_or_bad_list_is_refused(tmp_path, capsys):
    r = repo(tmp_path)
    assert mutate.main(["--root", str(r), "--list", mutants(tmp_path, ("gone", "return 4 * x", "return 5 * x"))]) == 1
    assert "its text occurs 0 times (want 1): the list is stale" in capsys.readouterr().err
    (tmp_path / "bad.yaml").write_text("mutants:\n  - {id: a, file: calc.py, find: x, replace: x, py: [t]}\n")
    with pytest.raises(SystemExit, match="replace is find"):
        mutate.main(["--root", str(r), "--list", str(tmp_path / "bad.yaml")])
    with pytest.raises(SystemExit, match="--only: no mutant nope"):
        mutate.main(["--root", str(r), "--list", mutants(tmp_path, ("a", "return 2 * x", "return 3 * x")), "--only", "nope"])


def test_the_project_list_applies():
    """Every mutant of the project's list is in its file exactly once (the list is not stale)."""
    ms = mutate.load(mutate.LIST)
    assert ms and [m["id"] for m in ms if mutate.stale(mutate.ROOT, m)] == []


def test_a_go_mutant_that_does_not_compile_is_broken_not_killed(tmp_path, capsys):
    r = tmp_path / "gorepo"
    r.mkdir()
    (r / "go.mod").write_text("module calc\n\ngo 1.21\n")
    (r / "calc.go").write_text("package calc\n\nfunc Double(x int) int { return 2 * x }\n")
    (r / "calc_test.go").write_text("package calc\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(3) != 6 {\n\t\tt.Fatal(Double(3))\n\t}\n}\n")
    for c in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(r), *c], check=True)
    lst = tmp_path / "go.yaml"
    lst.write_text("mutants:\n"
                   "  - {id: undefined, file: calc.go, find: 'return 2 * x', replace: 'return 2 * y', go: [./]}\n"
                   "  - {id: triple, file: calc.go, find: 'return 2 * x', replace: 'return 3 * x', go: [./]}\n")
    assert mutate.main(["--root", str(r), "--list", str(lst), "--min", "0"]) == 1
    out, err = capsys.readouterr()
    assert "BROKEN   undefined" in out and "killed   triple" in out and "mutate: 1 of 1 killed (100 %)" in out
    assert "broken undefined: calc.go: the mutant does not compile" in err
