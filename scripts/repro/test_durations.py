"""durations.py: the machine time of kept runs from their manifests."""
import json

import durations


def manifest(root, name, start, end, platform="local"):
    d = root / name
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps({"start": start, "end": end, "spec": {"platform": {"name": platform}}}))


def test_runs_sum_into_sessions_split_by_a_gap(tmp_path):
    manifest(tmp_path, "a", "2026-11-25T01:25:14.604664262Z", "2026-11-25T01:27:27.604664262Z")  # 133 s
    manifest(tmp_path, "b", "2026-11-25T01:27:27.9Z", "2026-11-25T01:30:28.9Z")  # 181 s, right after
    manifest(tmp_path, "c", "2026-11-25T04:03:06Z", "2026-11-25T04:03:43Z", "knative")  # 37 s, hours later
    out = durations.report([tmp_path])
    lines = out.splitlines()
    assert lines[0] == "run\tstart\tseconds\tplatform"
    assert lines[1].endswith("\t2026-11-25T01:25:14Z\t133\tlocal") and lines[3].endswith("\t37\tknative")
    sess = lines[lines.index("session\truns\tseconds") + 1:]
    assert sess == ["2026-11-25 01:25-01:30\t2\t314", "2026-11-25 04:03-04:03\t1\t37", "total\t3\t351"]


def test_a_missing_folder_or_a_manifest_without_times_is_an_error(tmp_path, capsys):
    assert durations.main(["durations.py", str(tmp_path / "gone")]) == 2
    assert "gone: not a folder" in capsys.readouterr().err
    (tmp_path / "x").mkdir()
    (tmp_path / "x/manifest.json").write_text(json.dumps({"start": "2026-11-25T01:00:00Z"}))
    assert durations.main(["durations.py", str(tmp_path)]) == 2
    assert "no start or end" in capsys.readouterr().err
    assert durations.main(["durations.py"]) == 2


def test_the_kept_durations_are_what_the_command_prints():
    kept = durations.ROOT / "docs/evidence/reproductions-2026-11-25/durations.txt"
    text = kept.read_text()
    head, _, body = text.partition("\n")
    assert head.startswith("# produced by: python3 scripts/repro/durations.py ")
    dirs = head.split("durations.py ", 1)[1].split(" (at ")[0].split()
    assert body == durations.report([durations.ROOT / d for d in dirs]).replace(str(durations.ROOT) + "/", "")
