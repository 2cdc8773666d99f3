"""deploy/openfaas/alert.py: the study's alert in OpenFaaS's own 2022 chart (its templates, as pinned), and a
chart that is not that one refused."""
import io
import subprocess
from pathlib import Path

import pytest

import alert

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def chart_text():
    """The pinned chart's two templates that alert.py edits (their lines hold no template expression)."""
    r = subprocess.run(["bash", str(ROOT / "deploy/shared/upstream.sh"), "openfaas-faas-netes-2022"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    t = Path(r.stdout.strip()) / "chart/openfaas/templates"
    return (t / "prometheus-cfg.yaml").read_text() + (t / "alertmanager-cfg.yaml").read_text()


def test_the_study_alert_in_the_pinned_chart(chart_text):
    out = alert.apply(chart_text, "10", "2s")
    assert 'BY (function_name) > 10\n          for: 2s\n' in out
    assert "      evaluation_interval: 2s\n" in out
    for k in ("group_wait", "group_interval", "repeat_interval"):
        assert f"      {k}: 2s\n" in out
    # Nothing else moved: the same lines but those five.
    changed = [(a, b) for a, b in zip(chart_text.splitlines(), out.splitlines()) if a != b]
    assert len(changed) == 6 and len(out.splitlines()) == len(chart_text.splitlines())
    # The scrape intervals and the rate's own window are the chart's.
    assert "[10s])) BY (function_name) > 10" in out and "scrape_interval:     15s" in out


def test_a_chart_not_the_pinned_one_is_refused(chart_text):
    with pytest.raises(ValueError, match="alert.rules.yml's APIHighInvocationRate rule"):
        alert.apply(chart_text.replace("> 5\n", "> 7\n"), "10", "2s")
    with pytest.raises(ValueError, match="repeat_interval: found 2 times"):
        alert.apply(chart_text + "\n      repeat_interval: 30s\n", "10", "2s")


def test_main_writes_the_chart_or_nothing(chart_text, capsys):
    out = io.StringIO()
    assert alert.main(["--rps", "10", "--window", "2s"], io.StringIO(chart_text), out) == 0
    assert "> 10" in out.getvalue()
    out = io.StringIO()
    assert alert.main(["--rps", "10", "--window", "2s"], io.StringIO("kind: ConfigMap\n"), out) == 1
    assert out.getvalue() == "" and "evaluation_interval: found 0 times" in capsys.readouterr().err


@pytest.mark.parametrize("args,flag", [(["--rps", "0", "--window", "2s"], "--rps"), (["--rps", "x", "--window", "2s"], "--rps"),
                                       (["--rps", "10", "--window", "2"], "--window"), (["--rps", "10", "--window", "2h30m"], "--window")])
def test_bad_flags_are_named(args, flag, capsys):
    with pytest.raises(SystemExit) as e:
        alert.main(args, io.StringIO(""), io.StringIO())
    assert e.value.code == 2 and flag in capsys.readouterr().err
