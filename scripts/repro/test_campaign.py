"""A campaign's plan: every platform once a round, the order rotated, bad flags named."""
import datetime

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
