"""Every figure in the docs can be traced: a paragraph (or table) of README.md, docs/ and bench/
that states a number with a unit names where it comes from (a command in backticks, a script, a
file under docs/evidence or bench/, a run's summary or manifest), or says that its numbers are
settings, not measurements, with the marker <!-- figures: settings --> in the paragraph. A file
whose first line is "<!-- produced by: COMMAND -->" has its tables traced to that command."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIGURE = re.compile(r"\b\d[\d,.]*\s*(ms|µs|req/s|MiB|GiB|KiB|MB|GB|cores?|CPU-s|s\b|%|×)")
SOURCE = re.compile(
    r"`[^`]*(faasbench|make |go test|scripts/|deploy/|bench/|python3|go run|examples/)[^`]*`"
    r"|docs/evidence/|bench/[A-Za-z_./-]+|scripts/[A-Za-z_./-]+|deploy/[A-Za-z_./-]+|examples/[A-Za-z_./-]+|summary\.json|manifest\.json"
    r"|RESULTS\.md|<!-- figures: settings -->")
MARK = "<!-- figures: settings -->"


def docs():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs/platforms").glob("*.md")),
            *sorted((ROOT / "docs/reproductions").glob("*.md")), *sorted((ROOT / "bench").glob("*.md"))]


def blocks(text):
    """Paragraphs, each with whether its heading or the paragraph just before it names a source (a
    table under the sentence that names its command); code blocks left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    out = []
    for section in re.split(r"\n(?=#{1,6} )", text):
        head, _, body = section.partition("\n")
        traced_head = bool(SOURCE.search(head))
        prev = ""
        for p in re.split(r"\n\s*\n", body):
            # A table or paragraph right after the one that names its command is traced by it.
            out.append((p, traced_head or bool(SOURCE.search(prev))))
            prev = p
    return out


def untraced():
    bad = []
    for f in docs():
        text = f.read_text()
        # A file written by a script says so on its first line: its tables are that script's output.
        produced = text.startswith("<!-- produced by:")
        for p, traced_head in blocks(text):
            if produced and p.lstrip().startswith("|"):
                continue
            if FIGURE.search(p) and not traced_head and not SOURCE.search(p):
                bad.append(f"{f.relative_to(ROOT)}: {' '.join(p.split())[:160]}")
    return bad


def test_the_rule_sees_an_untraced_figure_and_a_traced_one():
    assert not SOURCE.search("the gateway adds 0.3 ms")
    assert SOURCE.search("the gateway adds 0.3 ms (`bin/faasbench run examples/003-breakdown.yaml`)")
    assert SOURCE.search("a 10 ms threshold " + MARK)
    # The platforms' scripts live in deploy/ (deploy/README.md): a paragraph that names one is traced.
    assert SOURCE.search("OpenFaaS's part took 267 s (deploy/openfaas/node-test.sh)")
    assert SOURCE.search("took 267 s (`deploy/node/test.sh`)")
    assert not any(FIGURE.search(b) for b, _ in blocks("# x\n\n```\n5 ms\n```\n"))
    assert blocks("# x\n\nrun `make bench`:\n\n| 5 ms |\n")[-1] == ("| 5 ms |\n", True)


def test_every_figure_in_the_docs_names_its_source():
    bad = untraced()
    assert bad == [], "\n".join(bad)
