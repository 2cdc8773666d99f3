"""Every measured figure in docs/reproductions.md's prose is in the evidence it names (issue 62).

The verdict tables are computed (rules.py write); the paragraphs around them are written by hand and
cite runs by their evidence folders. A paragraph's figures must come from those folders, so that a
figure from a superseded run, a slip of the pen or a number from memory is found:

- The prose is cut into units: a paragraph, or one item of a list. A unit's evidence is every
  docs/evidence/... path it names, and for a list's item the paths the sentence leading the list names
  (the items under the sentence that names their runs).
- A figure is a number with a decimal point or of three digits or more (13,447 included). Numbers of
  one or two digits are mostly the settings (connections, rounds, pods) and are not checked. Dates,
  times, commits, versions, run ids, paths, anything in backticks, seed numbers (000-004), figure and
  line numbers (Fig 5.8, l. 832) and years (1990-2039) are not figures.
- A figure is backed when a number in the unit's evidence rounds to it at the precision it is written with
  (2666 by 2666.4, 42.9 by 42.94): the numbers of the folders' text files (summary.md, README.md, *.txt,
  *.tsv) and manifests, a figure with a unit (req/s, ms, s, MiB/s...) only by the numbers stated in that unit
  (a table's column, a sentence's number with the unit after it); the readings the registered rules give on
  the runs there (a median over the repetitions, a ratio: what rules.py computes and no file writes out); the
  computed verdict section of the same document; and, for a figure of four significant digits or more, any
  number of the runs' summary.json (a repetition's request count). A figure said of a study (the word "study"
  or an opening quote shortly before it) may also come from the seeds' text.
- A paragraph that carries the marker <!-- figures: settings --> states settings, not measurements, and
  is not checked, its list included (the same marker test_figures.py honours).

Usage: python3 scripts/repro/prose.py [DOC]   prints each figure not backed; exit 1 if any.
       python3 scripts/repro/prose.py --power [DOC]   how many figures, each moved by 3, 7 and 20 %, it would catch.
"""
import gzip
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import rules  # noqa: E402

SETTINGS = "<!-- figures: settings -->"
EVIDENCE_PATH = re.compile(r"docs/evidence/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*")
# A number not glued to a word, a path, a time or a date on either side.
# A number not glued to a word, a path, a time or a date on either side; after a hyphen only in a range (2077-2159).
NUMBER = re.compile(r"(?<![\w./:,])(?<![^\d\s(]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w/:]|\.\d|-\d{2}-)")
NOT_FIGURES = [
    re.compile(r"`[^`]*`"),
    re.compile(r"\b\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?"),  # dates
    re.compile(r"\b\d{8}T\d{6}Z?"),  # campaign and run stamps
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?"),  # times of day
    re.compile(r"\b(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b|\b[0-9a-f]{7,40}\b(?=[,;) ]|$)"),  # commits
    re.compile(r"\bv?\d+\.\d+\.\d+\b|\b\d+\.\d+\+"),  # versions (1.14.1, Kubernetes 1.22+)
    re.compile(r"(?:docs|examples|scripts|deploy|bench|\.\./shared)/\S+"),  # paths
    re.compile(r"\b(?:Figs?|Tables?|§|l\.|lines?|seeds?|issues?|#)\s*[\d.]+(?:\s*(?:-|and|to)\s*[\d.]+)?"),
    re.compile(r"\b0\d\d\b"),  # seed numbers: 000, 002, 003's
    re.compile(r"\bHTTP [1-5]\d\d\b"),  # status codes
]
# The unit a number is stated in: the first unit word after it, past a range or a list of numbers ("8278-8879
# req/s", "36 [30-42] s", "607 / 574 / 520 req/s"). A figure with a unit is matched against the numbers of the
# evidence stated in the same unit (a summary table's column, a sentence's number with that unit after it), and
# against the evidence's numbers stated in none; a number of a summary table's other columns cannot back it.
UNITS = ("req/s", "MiB/s", "images/s", "items/s", "ms", "s", "MiB", "GiB", "KiB", "MB", "cores")
UNIT_AFTER = re.compile(r"(?:\s*+(?>[-–/,;\[\]]|\band\b|\bto\b|\bagainst\b|-?\d[\d,.]*+))*+\s*+(" +
                        "|".join(re.escape(u) for u in UNITS) + r")(?![\w/])")
UNIT_WINDOW = 60


def unit_after(text, end):
    """The unit word stated after a number ending at end, or ""."""
    m = UNIT_AFTER.match(text[end:end + UNIT_WINDOW])
    return m.group(1) if m else ""


YEAR = re.compile(r"^(19[9]\d|20[0-3]\d)$")
STUDY = re.compile(r"stud(?:y|ies)|\"|“")


def units(text):
    """(line number, unit text) for each paragraph or list item of the prose, outside the generated section
    and code blocks, each with the evidence paths it is judged against."""
    text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    a, b = text.find(rules.BEGIN), text.find(rules.END)
    if a >= 0 and b > a:
        text = text[:a] + "\n" * text[a:b].count("\n") + text[b:]
    out = []
    line = 1
    for para in re.split(r"(\n\s*\n)", text):
        if not para.strip():
            line += para.count("\n")
            continue
        inherited = []
        offset = 0
        for i, item in enumerate(re.split(r"\n(?=\s*(?:[-*]|\d+\.) )", para)):
            named = [p.rstrip(".") for p in EVIDENCE_PATH.findall(item)]
            evidence = list(dict.fromkeys(named + inherited))
            if i == 0 and not re.match(r"\s*(?:[-*]|\d+\.) ", item):
                inherited = named  # a list's items are read against the sentence that leads them
            # The settings marker anywhere in a paragraph covers its list too.
            out.append((line + para[:offset].count("\n"), item, evidence, SETTINGS in para))
            offset += len(item) + 1
        line += para.count("\n")
    return out


def figures(unit):
    """The figures of a unit: (text as written, value, decimals, where in the unit)."""
    masked = unit
    for pat in NOT_FIGURES:
        masked = pat.sub(lambda m: " " * len(m.group(0)), masked)
    out = []
    for m in NUMBER.finditer(masked):
        whole, frac = m.group(1), m.group(2) or ""
        if not frac and (len(whole.replace(",", "")) < 3 or YEAR.match(whole)):
            continue
        out.append((whole + frac, float(whole.replace(",", "") + frac), len(frac) - 1 if frac else 0, m.start(),
                    unit_after(unit, m.end())))
    return out


HEADER_UNITS = {"seconds": "s", "milliseconds": "ms"}


def column_unit(h):
    """The unit a table's column header states: req/s, "p99 ms" (its last word), "seconds"; or ""."""
    last = h.rsplit(" ", 1)[-1]
    return h if h in UNITS else HEADER_UNITS.get(h) or HEADER_UNITS.get(last) or (last if " " in h and last in UNITS else "")


def tagged_numbers(text):
    """unit -> the numbers the text states in it ("" for none). A table's cells take their column's unit (a markdown
    table's, or a tab-separated one's whose header row has no digits: durations.py's, campaign.tsv); a number of a
    sentence the unit written after it. A figure with a unit is backed by its unit's numbers only, so the other
    columns of a summary's table cannot back it by chance."""
    out = {}
    header = None
    for line in text.splitlines():
        if line.startswith("|") or "\t" in line:
            cells = [c.strip() for c in (line.strip().strip("|").split("|") if line.startswith("|") else line.split("\t"))]
            # A markdown table's first row is its header; a tab-separated one's is a row without a number.
            if header is None and (line.startswith("|") or not re.search(r"\d", line)):
                header = cells
                continue
            if all(set(c) <= set("-: ") for c in cells):
                continue
            for i, c in enumerate(cells):
                unit = column_unit(header[i]) if header and i < len(header) else ""
                out.setdefault(unit, set()).update(numbers(c))
            continue
        header = None
        for m in re.finditer(r"-?\d+(?:,\d{3})*(?:\.\d+)?", line):
            try:
                out.setdefault(unit_after(line, m.end()), set()).add(float(m.group(0).replace(",", "")))
            except ValueError:
                continue
    return out


def numbers(text):
    out = set()
    for m in re.finditer(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?", text):
        try:
            out.add(float(m.group(0).replace(",", "")))
        except ValueError:
            continue
    return out


def evidence_numbers(root, path, cache):
    """unit -> the numbers of a folder's (or a file's) text files and manifests (tagged_numbers), read once."""
    if path in cache:
        return cache[path]
    p = root / path
    files = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else []
    got = {}
    for f in files:
        if f.suffix in (".md", ".txt", ".tsv") or f.name == "manifest.json":
            for u, v in tagged_numbers(f.read_text(errors="replace")).items():
                got.setdefault(u, set()).update(v)
    cache[path] = got
    return got


def readings(root, paths, doc, cache):
    """The numbers the registered rules read from the runs under the folders a unit names: each rule a run there
    was made under, judged on that run alone (a rule of one platform) or with the latest run under those folders
    of each platform it compares, as rules.py judges them. These are the derived figures (a ratio, a median over
    the repetitions, a range) that no file of the runs writes out."""
    key = ("readings", tuple(sorted(set(paths))))
    if key in cache:
        return cache[key]
    got = set()
    found = []
    for path in key[1]:
        p = root / path
        found += rules.registered_runs(p) if p.is_dir() else []
    runs = rules.units(found)
    by_id = {r["id"]: r for r in doc["rules"]}
    latest = {}
    for u in runs:
        for rid, _ in u.rules:
            latest[(rid, u.platform)] = u  # units() sorts by order: the last one of a platform is its latest
    for u in runs:
        for rid, _ in u.rules:
            rule = by_id.get(rid)
            if rule is None:
                continue
            want = rules.compared(rule)
            if want and not all((rid, pl) in latest for pl in want):
                continue
            plat = {pl: latest[(rid, pl)] for pl in want} if want else {"*": u}
            try:
                _, results = rules.judge(rule, plat)
            except (rules.RuleError, KeyError, ValueError, ZeroDivisionError):
                continue
            for _, _, detail in results:
                got |= numbers(detail)
            # The rule's own bounds (a p99 within 500 ms) are what these runs were judged against.
            got |= numbers(" ".join([rule.get("claim", "")] + [str(c) for c in rule["checks"]]))
    cache[key] = got
    return got


def summary_numbers(root, path, cache):
    """The numbers of the runs' summary.json(.gz) under a folder: every figure of every repetition. Only a figure
    written with four significant digits or more is looked up here: among the thousands of numbers of a summary a
    figure of two or three digits would find its match by chance."""
    key = ("summary", path)
    if key in cache:
        return cache[key]
    p = root / path
    got = set()
    for f in sorted(p.rglob("summary.json*")) if p.is_dir() else []:
        if f.name == "summary.json":
            got |= numbers(f.read_text(errors="replace"))
        elif f.name == "summary.json.gz":
            got |= numbers(gzip.open(f, "rt").read())
    cache[key] = got
    return got


def significant(written):
    """Significant digits as written: 13,447 has five, 4,900 two (its zeros only place it), 0.0120 three."""
    w = written.replace(",", "")
    digits = w.replace(".", "").lstrip("0")
    return len(digits if "." in w else digits.rstrip("0"))


def backed(value, decimals, pool):
    tol = 0.5 * 10 ** -decimals + 1e-9
    return any(abs(v - value) <= tol for v in pool)


class Checker:
    """The doc's figures and what backs each: the evidence its unit names, the readings, the tables, the seeds."""

    def __init__(self, doc=rules.DOC, root=ROOT, seeds=None):
        self.root, self.name = root, pathlib.Path(doc).name
        self.text = pathlib.Path(doc).read_text()
        a, b = self.text.find(rules.BEGIN), self.text.find(rules.END)
        self.table = numbers(self.text[a:b]) if a >= 0 and b > a else set()
        seeds = rules.seeds_dir() if seeds is None else seeds
        self.seed_numbers = None
        if seeds.is_dir():
            self.seed_numbers = set()
            for f in sorted(seeds.iterdir()):
                if f.is_file():
                    self.seed_numbers |= numbers(f.read_text(errors="replace"))
        path = root / "docs/reproductions/rules.yaml"
        self.registered = rules.load(path) if path.exists() else {"rules": []}
        self.cache = {}

    def units(self):
        """(line, unit, evidence, figures, is_backed) for each unit of the prose that is not settings; is_backed(written,
        value, decimals, at, unit_word) says whether a figure, as written there, is backed."""
        for line, unit, evidence, settings in units(self.text):
            if settings:
                continue
            # A unit that names its runs is read against them; the computed verdicts back only a unit that names none.
            pool, stated, wide = (set() if evidence else set(self.table)), {}, []
            # The rules judged on each folder alone, and on the folders together (a platform's run in one, the others' in another).
            for group in [[e] for e in evidence] + ([evidence] if len(evidence) > 1 else []):
                pool |= readings(self.root, group, self.registered, self.cache)
            for e in evidence:
                for u, v in evidence_numbers(self.root, e, self.cache).items():
                    stated.setdefault(u, set()).update(v)

            def is_backed(written, value, decimals, at, unit_word, unit=unit, pool=pool, stated=stated, wide=wide, evidence=evidence):
                # A figure with a unit: the evidence's numbers stated in that unit (and the readings); without one: any.
                here = pool | stated.get(unit_word, set()) if unit_word else pool.union(*stated.values())
                if backed(value, decimals, here):
                    return True
                if significant(written) >= 4:
                    if not wide:
                        wide.append(set().union(*(summary_numbers(self.root, e, self.cache) for e in evidence)))
                    if backed(value, decimals, wide[0]):
                        return True
                if STUDY.search(unit[max(0, at - 120):at]):
                    # Said of a study: in the seed's text; where the seeds are not on this machine it cannot be checked here.
                    return self.seed_numbers is None or backed(value, decimals, self.seed_numbers)
                return False
            yield line, unit, evidence, figures(unit), is_backed


def unbacked(doc=rules.DOC, root=ROOT, seeds=None):
    """Each figure of the doc's prose that its evidence does not hold: 'doc:line: figure: why'."""
    c = Checker(doc, root, seeds)
    out = []
    for line, unit, evidence, figs, is_backed in c.units():
        missing = [e for e in evidence if not (root / e).exists()]
        for written, value, decimals, at, unit_word in figs:
            if is_backed(written, value, decimals, at, unit_word):
                continue
            where = f"{c.name}:{line + unit[:at].count(chr(10))}"
            if missing:
                why = f"{', '.join(missing)} not found"
            elif evidence:
                why = f"not in {', '.join(sorted(set(evidence)))} nor the computed verdicts"
            else:
                why = "the paragraph names no evidence (docs/evidence/...), and it is not in the computed verdicts"
            out.append(f"{where}: {written}: {why}")
    return out


def power(doc=rules.DOC, root=ROOT, seeds=None, factors=(1.03, 1.07, 1.2)):
    """How sensitive the check is: for each factor, (caught, tried): each backed figure of the doc moved by the factor
    (and written at its precision) is tried as if the doc said that; caught when nothing backs the moved figure."""
    c = Checker(doc, root, seeds)
    out = {f: [0, 0] for f in factors}
    for _, _, _, figs, is_backed in c.units():
        for written, value, decimals, at, unit_word in figs:
            if not is_backed(written, value, decimals, at, unit_word):
                continue
            for f in factors:
                moved = round(value * f, decimals)
                w = f"{moved:.{decimals}f}"
                if w == written.replace(",", ""):
                    continue
                out[f][1] += 1
                out[f][0] += not is_backed(w, moved, decimals, at, unit_word)
    return out


def main(argv):
    if len(argv) > 1 and argv[1] == "--power":
        doc = pathlib.Path(argv[2]) if len(argv) > 2 else rules.DOC
        for f, (caught, tried) in power(doc).items():
            print(f"each backed figure moved by {100 * (f - 1):.0f} %: {caught} of {tried} caught ({100 * caught / max(tried, 1):.0f} %)")
        return 0
    doc = pathlib.Path(argv[1]) if len(argv) > 1 else rules.DOC
    bad = unbacked(doc)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
