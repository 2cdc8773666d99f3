"""prose.py: every measured figure of docs/reproductions.md's prose is in the evidence it names."""
import json
import pathlib

import prose
import rules

SUMMARY = """# seed003-hello-concurrency (nuclio, complete)

| cell | reps | req/s | p50 ms | p90 ms | p99 ms | max ms | requests | failed | errors |
|---|---|---|---|---|---|---|---|---|---|
| hello-python/c=1 | 3 | 8495 [8278–8879] | 0.104 | 0.131 | 0.398 | 6.02 | 88795 | 0 | none |
| hello-python/c=64 | 3 | 10480 [10301–10512] | 5.6 | 6.4 | 16.3 | 49.02 | 104849 | 0 | none |

- hello-python/c=1: replicas max 3 [3–5] (first scale-up at 36 [30–42] s)
"""


def tree(tmp_path, doc_text, table=""):
    """A repository with one run's evidence and docs/reproductions.md holding the text (and a verdict section)."""
    ev = tmp_path / "docs/evidence/camp-1/nuclio-run"
    ev.mkdir(parents=True)
    (ev / "summary.md").write_text(SUMMARY)
    (ev / "summary.json").write_text(json.dumps({"cells": [{"requests": {"total": 13447}}], "bucket": 4899.7}))
    (tmp_path / "docs/reproductions").mkdir(parents=True)
    doc = tmp_path / "docs/reproductions.md"
    doc.write_text(f"# R\n\n{doc_text}\n\n{rules.BEGIN}\n{table}\n{rules.END}\n")
    return doc


def check(tmp_path, text, table="", seeds=None):
    doc = tree(tmp_path, text, table)
    return prose.unbacked(doc, root=tmp_path, seeds=seeds or tmp_path / "no-seeds")


def test_a_figure_of_the_runs_named_is_backed_and_a_changed_one_is_not(tmp_path):
    ok = "Nuclio served 8495 req/s at one connection, 8278-8879 (docs/evidence/camp-1/), p99 16.3 ms at 64."
    assert check(tmp_path, ok) == []
    bad = check(tmp_path / "b", ok.replace("8495", "8695").replace("16.3", "16.8"))
    assert len(bad) == 2 and "8695" in bad[0] and "docs/evidence/camp-1" in bad[0] and "16.8" in bad[1]
    assert bad[0].startswith("reproductions.md:3: ")


def test_a_figure_is_matched_at_the_precision_it_is_written_with(tmp_path):
    assert check(tmp_path, "Nuclio's p99 at one connection 0.40 ms and 0.4 ms (docs/evidence/camp-1/).") == []
    assert len(check(tmp_path / "b", "Nuclio's p99 at one connection 0.41 ms (docs/evidence/camp-1/).")) == 1


def test_a_figure_with_a_unit_is_not_backed_by_another_columns_number(tmp_path):
    # 6.02 is a max ms in the table: stated as req/s it is not backed by it, stated in ms it is.
    assert check(tmp_path, "it peaked at 6.02 ms (docs/evidence/camp-1/).") == []
    assert len(check(tmp_path / "b", "it served 6.02 req/s (docs/evidence/camp-1/).")) == 1
    # Ranges and lists take the unit after them: "30-42 s" and "36 [30-42] s" are both in seconds.
    assert check(tmp_path / "c", "the first scale-up at 36.0 s, 30.0-42.0 s (docs/evidence/camp-1/).") == []


def test_a_paragraph_that_names_no_evidence_needs_its_figures_in_the_computed_verdicts(tmp_path):
    got = check(tmp_path, "Nuclio served 8495 req/s.")
    assert len(got) == 1 and "names no evidence" in got[0]
    assert check(tmp_path / "b", "Nuclio served 8495 req/s.", table="| x | 8495 / 8278 ✓ |") == []
    # A paragraph that names its runs is read against them, not against the verdict tables.
    got = check(tmp_path / "c", "Knative served 2127 req/s (docs/evidence/camp-1/).", table="| x | 2127 |")
    assert len(got) == 1 and "2127" in got[0]


def test_a_named_folder_that_is_not_there_is_said(tmp_path):
    got = check(tmp_path, "served 8495 req/s (docs/evidence/gone-2026/).")
    assert len(got) == 1 and "docs/evidence/gone-2026 not found" in got[0]


def test_a_lists_items_read_against_the_sentence_that_leads_them(tmp_path):
    text = "The runs (docs/evidence/camp-1/):\n- Python 8495 req/s at one connection.\n- p99 16.3 ms at 64."
    assert check(tmp_path, text) == []
    lone = "- Python 8495 req/s at one connection.\n- p99 16.3 ms at 64 (docs/evidence/camp-1/)."
    got = check(tmp_path / "b", lone)
    assert len(got) == 1 and "8495" in got[0]  # a sibling item's evidence is not the first item's


def test_settings_and_what_is_not_a_figure_are_not_checked(tmp_path):
    text = ("On 2026-11-27 at 17:43 (commit 90c6560, Knative v0.42.2, Kubernetes 1.22+) seed 003's Fig 5.15, l. 832, "
            "issue 62, in 2022: 64 connections, `bin/faasbench run --set repetitions=300`, HTTP 500, "
            "docs/evidence/camp-1/round-123/ and seed000-image-batch-20261127T200140-c4fdb4.")
    assert check(tmp_path, text) == []
    assert check(tmp_path / "b", "an invoker's 2048 MB and 8 containers <!-- figures: settings -->\n- of 256 MB") == []


def test_a_figure_of_four_significant_digits_may_come_from_a_summary_json(tmp_path):
    assert check(tmp_path, "a repetition of 13,447 requests (docs/evidence/camp-1/).") == []
    # 4,900 has two significant digits: the summary's 4899.7 is a chance match and does not back it.
    got = check(tmp_path / "b", "Python 4,900 req/s (docs/evidence/camp-1/).")
    assert len(got) == 1 and "4,900" in got[0]


def test_a_figure_said_of_a_study_comes_from_the_seeds(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "000.txt").write_text("Meanwhile, the baseline sits at 12.58 images per second.")
    assert check(tmp_path / "a", "the study's baseline 12.58 images/s", seeds=seeds) == []
    assert len(check(tmp_path / "b", "the study's baseline 12.68 images/s", seeds=seeds)) == 1
    assert len(check(tmp_path / "c", "our baseline 12.58 images/s", seeds=seeds)) == 1


def test_the_readings_of_the_rules_back_a_derived_figure(tmp_path):
    doc = {"rules": [{"id": "r1", "claim": "the p99 within 500 ms", "figures": {
        "p99": {"cell": "hello-python/c=64", "metric": "latency_ms.p99"},
        "p50": {"cell": "hello-python/c=64", "metric": "latency_ms.p50"}},
        "checks": [{"name": "tail", "median": "p99 / p50 > 2"}]}]}
    run = tmp_path / "docs/evidence/camp-2/nuclio-run"
    run.mkdir(parents=True)
    cells = [{"key": "hello-python/c=64", "repetition": i, "latency_ms": {"p99": 16.0 + i, "p50": 5.5}} for i in (1, 2, 3)]
    (run / "summary.json").write_text(json.dumps({"cells": cells}))
    (run / "manifest.json").write_text(json.dumps({"run_id": "x-1", "spec": {"platform": {"name": "nuclio"},
                                                                             "labels": {"rule": "r1"}}}))
    got = prose.readings(tmp_path, ["docs/evidence/camp-2"], doc, {})
    assert any(abs(v - 18.0 / 5.5) < 0.01 for v in got)  # the median ratio, which no file writes out
    assert 500.0 in got  # the rule's bound


def test_the_reproductions_doc_has_no_figure_its_evidence_lacks():
    assert prose.unbacked() == []


def test_significant_digits():
    assert [prose.significant(w) for w in ("13,447", "4,900", "0.0120", "2666", "42.9")] == [5, 2, 3, 4, 3]


def test_main_prints_and_fails(tmp_path, capsys):
    doc = tree(tmp_path, "Nuclio served 9999 req/s.")
    assert prose.main(["prose.py", str(doc)]) == 1
    assert "9999" in capsys.readouterr().out
    assert pathlib.Path(doc).exists()


def test_power_moves_each_backed_figure_and_counts_what_is_caught(tmp_path):
    doc = tree(tmp_path, "Nuclio served 8495 req/s at one connection (docs/evidence/camp-1/).")
    got = prose.power(doc, root=tmp_path, seeds=tmp_path / "no-seeds", factors=(1.03,))
    assert got == {1.03: [1, 1]}  # 8750 req/s is nowhere in the run
    # A figure the evidence also holds moved (8278 × 1.07 = 8857 is not there; 8495 × 1.046 = 8879 is).
    doc = tree(tmp_path / "b", "Nuclio served 8495 req/s (docs/evidence/camp-1/).")
    assert prose.power(doc, root=tmp_path / "b", seeds=tmp_path / "no-seeds", factors=(8879 / 8495,)) == {8879 / 8495: [0, 1]}


def test_a_tab_separated_tables_columns_give_their_units(tmp_path):
    doc = tree(tmp_path, "Nuclio's run took 130 s (docs/evidence/camp-1/).")
    (tmp_path / "docs/evidence/camp-1/durations.txt").write_text(
        "# produced by: durations.py\nrun\tstart\tseconds\tplatform\nround-1/nuclio\t2026-12-01T21:23:11Z\t130\tnuclio\n")
    assert prose.unbacked(doc, root=tmp_path, seeds=tmp_path / "no-seeds") == []
    doc.write_text(doc.read_text().replace("took 130 s", "served 130 req/s"))
    assert len(prose.unbacked(doc, root=tmp_path, seeds=tmp_path / "no-seeds")) == 1
