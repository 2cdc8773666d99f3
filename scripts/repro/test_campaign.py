"""A campaign's plan: every platform once a round, the order rotated, bad flags named."""
import datetime

import pytest

import campaign
import rules
import run as run_py

CMP = {"id": "t-cmp", "platforms": ["nuclio", "knative", "openfaas", "fission"],
       "figures": {"nu": {"platform": "nuclio", "cell": "k", "metric": "throughput_rps"},
                   "kn": {"platform": "knative", "cell": "k", "metric": "throughput_rps"},
                   "of": {"platform": "openfaas", "cell": "k", "metric": "throughput_rps"}}}
SHAPE = {"id": "t-shape", "platforms": ["local", "knative", "fission"], "figures": {"t": {"cell": "k", "metric": "throughput_rps"}}}


def test_each_round_runs_every_platform_once_in_a_rotated_order():
    order, err = campaign.plan([CMP, SHAPE], [], 3)
    assert err is None
    assert order == [(1, "nuclio"), (1, "knative"), (1, "openfaas"),
                     (2, "knative"), (2, "openfaas"), (2, "nuclio"),
                     (3, "openfaas"), (3, "nuclio"), (3, "knative")]


def test_platforms_given_may_add_one_the_rules_name():
    order, err = campaign.plan([CMP, SHAPE], ["fission", "knative"], 2)
    assert err is None and order == [(1, "fission"), (1, "knative"), (2, "knative"), (2, "fission")]


def test_bad_flags_are_named():
    assert campaign.plan([CMP], [], 0)[1].startswith("--rounds 0:")
    assert campaign.plan([CMP], [], 21)[1].startswith("--rounds 21:")
    assert "--platforms: local is not a real platform" in campaign.plan([SHAPE], ["local"], 1)[1]
    assert "--platforms: kubeless is not a real platform of t-cmp" in campaign.plan([CMP], ["kubeless"], 1)[1]
    assert "names a platform twice" in campaign.plan([CMP], ["nuclio", "nuclio"], 1)[1]
    assert "compare no platforms" in campaign.plan([SHAPE], [], 1)[1]


def test_the_id_is_utc_to_the_second():
    t = datetime.datetime(2026, 12, 1, 18, 5, 9, tzinfo=datetime.timezone.utc)
    assert campaign.campaign_id(t) == "20261201T180509Z"


def test_plan_prints_the_id_then_the_runs_of_a_registered_comparison(capsys):
    doc = rules.load()
    rs, err = run_py.pick(doc, "003-fig6-platforms,003-fig6-tail")
    assert err is None
    assert campaign.main(["plan", "003-fig6-platforms,003-fig6-tail", "--rounds", "2"]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert len(lines[0]) == 16 and lines[0].endswith("Z")
    assert lines[1:4] == ["1 nuclio", "1 knative", "1 openfaas"] and lines[4] == "2 knative" and lines[7] == ""
    assert campaign.main(["plan", "003-fig6-platforms", "--rounds", "30"]) == 2
    assert "--rounds 30" in capsys.readouterr().err


TSV = """campaign\t20261201T174352Z
rules\tt-cmp
commit\t90c65607b40a
binary_sha256\tabc
round\tplatform\tstart\tend\texit
1\tnuclio\t2026-12-01T17:43:54Z\t2026-12-01T17:47:44Z\t0
1\tknative\t2026-12-01T17:47:44Z\t2026-12-01T17:51:35Z\t1
1\topenfaas\t2026-12-01T17:51:35Z\t2026-12-01T17:54:40Z\t0
"""


def test_a_resumed_campaign_makes_only_the_runs_that_did_not_end_well(tmp_path):
    p = tmp_path / "campaign.tsv"
    p.write_text(TSV)
    head, done = campaign.read_tsv(p)
    assert head["campaign"] == "20261201T174352Z" and done == {(1, "nuclio"): 0, (1, "knative"): 1, (1, "openfaas"): 0}
    order, _ = campaign.plan([CMP], [], 2)
    left, err = campaign.resume(order, "t-cmp", head, done, "90c65607b40a")
    assert err is None and left == [(1, "knative"), (2, "knative"), (2, "openfaas"), (2, "nuclio")]
    # A retry that ended well counts: the last attempt's exit decides.
    p.write_text(TSV + "1\tknative\t2026-12-01T18:00:00Z\t2026-12-01T18:03:00Z\t0\n")
    assert campaign.resume(order, "t-cmp", *campaign.read_tsv(p), "90c65607b40a")[0][0] == (2, "knative")
    assert "ran t-cmp, not t-other" in campaign.resume(order, "t-other", head, done, "90c65607b40a")[1]
    assert "a campaign is one binary" in campaign.resume(order, "t-cmp", head, done, "ffff")[1]


def test_resume_names_a_file_that_is_not_a_campaign(tmp_path, capsys):
    p = tmp_path / "x.tsv"
    p.write_text("round\tplatform\n")
    assert campaign.main(["plan", "003-fig6-platforms", "--resume", str(p), "--commit", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("campaign.py: --resume: ") and "no campaign line: not a campaign.tsv" in err


def test_the_script_refuses_bad_settings_before_anything_starts(tmp_path):
    """deploy/node/campaign.sh checks its rules, ROUNDS, PLATFORMS and a campaign to resume before the tree, the
    build or the node: exit 2 and the flag named."""
    import os
    import shutil
    import subprocess
    if shutil.which("git") is None or not (rules.ROOT / ".git").exists():
        pytest.skip("no git checkout here: the script reads the commit")
    script = str(rules.ROOT / "deploy/node/campaign.sh")
    env = dict(os.environ, ROUNDS="0")
    r = subprocess.run([script, "003-fig6-platforms"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--rounds 0: from 1 to 20" in r.stderr
    env = dict(os.environ, PLATFORMS="kubeless")
    r = subprocess.run([script, "003-fig6-platforms"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--platforms: kubeless is not a real platform" in r.stderr
    (tmp_path / "campaign.tsv").write_text(TSV)
    r = subprocess.run([script, "003-fig6-platforms", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--resume: campaign 20261201T174352Z ran t-cmp, not 003-fig6-platforms" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.tsv"]
