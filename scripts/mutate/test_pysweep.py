"""make mutate-py's driver on a small repository of its own: which tokens it mutates (never a sign, *args or a
string join), a mutant the tests catch is killed, one they miss lives and is named, a line no test runs is not
tried, the efficacy decides the exit, and the tree is untouched."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import pysweep  # noqa: E402
import testrepo  # noqa: E402

CODE = '''def double(x):
    return 2 * x


def big(x):
    return x > 10


def unused(x, *rest):
    return -x - 1 + len("a" + "b")
'''
TEST = '''from calc import big, double


def test_double():
    assert double(3) == 6


def test_big():
    assert big(11) and not big(5)
'''


def repo(tmp_path):
    return testrepo.git_repo(tmp_path / "repo", {"calc.py": CODE, "test_calc.py": TEST})


def test_mutants_leave_signs_star_args_and_string_joins():
    got = [(m[0], m[1], m[3], m[4]) for m in pysweep.mutants(CODE)]
    assert got == [
        ("ARITHMETIC_BASE", 2, "*", "/"),
        ("CONDITIONALS_BOUNDARY", 6, ">", ">="),
        ("CONDITIONALS_NEGATION", 6, ">", "<="),
        ("ARITHMETIC_BASE", 10, "-", "+"),  # the binary minus; the sign before x is left
        ("ARITHMETIC_BASE", 10, "+", "-"),  # ... + len(...); "a" + "b" is left
    ]
    assert pysweep.apply(CODE, ("X", 6, 13, ">", ">=")).splitlines()[5] == "    return x >= 10"


def test_sweep_kills_lives_and_skips_what_no_test_runs(tmp_path, capsys):
    r = repo(tmp_path)
    rc = pysweep.main(["--root", str(r), "--workers", "2", "--min", "0.9", "calc.py:test_calc.py"])
    out = capsys.readouterr().out
    assert rc == 1, out  # 2 of 3: under 90 %
    assert "KILLED ARITHMETIC_BASE at calc.py:2:14 (* -> /)" in out
    assert "KILLED CONDITIONALS_NEGATION at calc.py:6:14 (> -> <=)" in out
    assert "LIVED CONDITIONALS_BOUNDARY at calc.py:6:14 (> -> >=)" in out  # big(10) is not tested
    assert out.count("NOT COVERED") == 2  # unused() never runs
    assert "2 killed, 1 lived: efficacy 66.7 %" in out
    assert "survivor CONDITIONALS_BOUNDARY at calc.py:6:14 (> -> >=)" in out
    assert (r / "calc.py").read_text() == CODE
    assert pysweep.main(["--root", str(r), "--workers", "1", "--min", "0.6", "calc.py:test_calc.py"]) == 0


def test_bad_targets_are_named(tmp_path):
    r = repo(tmp_path)
    for bad, word in (["calc.py"], "FILE.py:TESTS"), (["calc.py:nope.py"], "no file nope.py"), (["--min", "2", "calc.py:test_calc.py"], "--min"):
        try:
            pysweep.main(["--root", str(r), *bad])
        except SystemExit as e:
            assert word in str(e)
        else:
            raise AssertionError(f"{bad} accepted")
