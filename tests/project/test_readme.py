"""The README's promises, read from the README itself: every command it shows runs, and every
number it quotes is the number the command gives.

The shell blocks are parsed and each ``prfeval`` line run (the ``trec_eval`` alias expanded)
from a folder holding the demo's files in ``prfeval-demo/``, as a reader who has run
``make demo`` would; a sample output block right after a shell block is that block's last
command's output, exactly. The Python block runs statement by statement, and a number in an
expression's comment (``# 0.333...``: truncated; ``# 0.75``: rounded) is its value. The
Commands table's commands run with their placeholders filled in, and every option the README
names is in the ``--help`` of the command it belongs to. If the README is edited, a number
that no longer holds fails here.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import re
import shlex
import signal
import subprocess
import sys
import tomllib
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: A number as the README writes it (not the full stop after it).
NUM = r"(\d+(?:\.\d+)?)"


# --- Reading the README -------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    lang: str
    text: str
    section: str
    start: int
    end: int


def _section_at(offset: int) -> str:
    headings = [m for m in re.finditer(r"^## (.+)$", README, re.M) if m.start() < offset]
    return headings[-1].group(1) if headings else ""


def _blocks() -> list[Block]:
    return [
        Block(m.group(1), m.group(2), _section_at(m.start()), m.start(), m.end())
        for m in re.finditer(r"^```(\w*)\n(.*?)^```[ \t]*$", README, re.S | re.M)
    ]


BLOCKS = _blocks()


def section(title: str) -> str:
    """The text of the section headed ``## title``, up to the next ``## `` heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.S | re.M)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def prose(text: str) -> str:
    """Text with its line breaks and runs of spaces made single spaces."""
    return " ".join(text.split())


def number(pattern: str, text: str = README) -> list[str]:
    """The groups of ``pattern`` in ``text`` (whitespace-insensitive), which must match."""
    match = re.search(pattern, prose(text))
    assert match, f"the README no longer says {pattern!r}"
    return list(match.groups())


@dataclass(frozen=True)
class Line:
    """One command line of a shell block."""

    text: str
    argv: tuple[str, ...]  # prfeval's arguments
    comment: str
    section: str
    output: str | None  # the sample output block right after the block, for its last line


def _shell_lines() -> tuple[list[Line], list[tuple[str, ...]]]:
    lines: list[Line] = []
    other: list[tuple[str, ...]] = []  # make, source: the set-up lines
    aliases: dict[str, list[str]] = {}
    for i, block in enumerate(BLOCKS):
        if block.lang != "sh":
            continue
        after = BLOCKS[i + 1] if i + 1 < len(BLOCKS) else None
        sample = (
            after.text
            if after is not None
            and after.lang == ""
            and not README[block.end : after.start].strip()
            else None
        )
        commands = [ln for ln in block.text.splitlines() if ln.strip()]
        for n, text in enumerate(commands):
            code, _, comment = text.partition(" #")
            words = shlex.split(code)
            if words[0] == "alias":
                name, _, value = words[1].partition("=")
                aliases[name] = shlex.split(value)
                continue
            words = aliases.get(words[0], [words[0]]) + words[1:]
            if words[0] in ("make", "source"):
                other.append(tuple(words))
                continue
            assert words[0] == "prfeval", f"README shows a command this test cannot run: {text}"
            last = n == len(commands) - 1
            lines.append(
                Line(text.strip(), tuple(words[1:]), comment.strip(" #"), block.section,
                     sample if last else None)
            )  # fmt: skip
    return lines, other


SHELL_LINES, SETUP_LINES = _shell_lines()


def table_rows(title: str) -> list[list[str]]:
    """The rows of the first Markdown table in a section, cells stripped, header dropped."""
    rows = []
    for ln in section(title).splitlines():
        if ln.startswith("|") and not re.match(r"^\|\s*-", ln):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", ln.strip())[1:-1]])
    return rows[1:]


def code_spans(text: str) -> list[str]:
    return [prose(s) for s in re.findall(r"`([^`]+)`", text)]


def table_values(sample: str) -> dict[str, list[float]]:
    """A measure table of the sample output: measure -> its numbers, left to right."""
    values = {}
    for ln in sample.splitlines():
        words = ln.split()
        if len(words) >= 2 and re.fullmatch(r"\d\.\d{4}", words[1]):
            values[words[0]] = [float(w) for w in words[1:] if not w.endswith("%")]
    return values


QUICK_START = next(ln for ln in SHELL_LINES if ln.output is not None and ln.argv[0] == "evaluate")
README_TABLE = table_values(QUICK_START.output or "")
DEMO_SAMPLE = next(b.text for b in BLOCKS if b.section == "The demo" and b.lang == "")


def demo_rows() -> dict[int, tuple[int, float, float, float]]:
    """The demo sample's query 2 table: k -> (relevant retrieved, P, R, F1)."""
    rows = {}
    for ln in DEMO_SAMPLE.splitlines():
        m = re.fullmatch(rf"\s+([\d,]+)\s+(\d+)\s+{NUM}\s+{NUM}\s+{NUM}", ln)
        if m:
            k, rel, p, r, f = m.groups()
            rows[int(k.replace(",", ""))] = (int(rel), float(p), float(r), float(f))
    assert len(rows) >= 3, "the demo sample lost its table"
    return rows


# --- Running commands ---------------------------------------------------------------------


@pytest.fixture
def in_demo_folder(cranfield_demo, monkeypatch):
    """The working folder of a reader after ``make demo``: ``prfeval-demo/`` beside them."""
    monkeypatch.chdir(cranfield_demo.folder)
    monkeypatch.setenv("COLUMNS", "80")
    return cranfield_demo


@pytest.fixture
def figures(monkeypatch):
    """The figures the command saves, kept open to be read."""
    import prfeval._plots.figures as module

    drawn: list[object] = []
    save = module.save_figure

    def keep(fig, path, **kwargs):
        drawn.append(fig)
        return save(fig, path)

    monkeypatch.setattr(module, "save_figure", keep)
    yield drawn
    import matplotlib.pyplot as plt

    plt.close("all")


def rows_of(out: str) -> dict[int, list[str]]:
    """A table printed by prfeval: the first column as an integer -> the other columns."""
    return {
        int(w[0]): w[1:] for w in (ln.split() for ln in out.splitlines()) if w and w[0].isdigit()
    }


# --- The set-up ---------------------------------------------------------------------------


def _requirements(extras: dict[str, list[str]], names: list[str]) -> set[str]:
    out: set[str] = set()
    for name in names:
        for req in extras[name]:
            nested = re.fullmatch(r"prfeval\[([\w,]+)\]", req)
            if nested:
                out |= _requirements(extras, nested.group(1).split(","))
            else:
                out.add(_canonical(re.split(r"[<>=!~;\[ ]", req)[0]))
    return out


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def test_setup_commands_are_make_targets_and_the_table_lists_what_they_install() -> None:
    makefile = (ROOT / "Makefile").read_text()
    for words in SETUP_LINES:
        if words[0] == "make":
            assert re.search(rf"^{words[1]}:", makefile, re.M), f"no make target {words[1]}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    core = {_canonical(re.split(r"[<>=!~; ]", r)[0]) for r in project["dependencies"]}
    everything = core | _requirements(extras, ["all"])
    rows = {row[0]: row[1] for row in table_rows("Set up")}
    demo = next(v for k, v in rows.items() if k.startswith("`make demo`"))
    test = next(v for k, v in rows.items() if k.startswith("`make test`"))
    listed = {_canonical(n) for n in demo.split(":", 1)[1].split(",")}
    assert listed == everything - {"prfeval"}
    listed = {_canonical(n) for n in test.split(":", 1)[1].split(",")}
    assert listed == _requirements(extras, ["test"]) - everything
    # "Extras one by one": every extra but `all`, which the sentence before names.
    named = re.findall(r"`(\w+)` \(", section("Set up").split("Extras one by one:")[1])
    assert set(named) == set(extras) - {"all"}
    assert f"Python >= {project['requires-python'].removeprefix('>=')}" in README


# --- The demo -----------------------------------------------------------------------------


def test_demo_prints_the_readme_sample(cranfield_demo) -> None:
    assert DEMO_SAMPLE in cranfield_demo.stdout, "the demo's query 2 output drifted"
    out = prose(cranfield_demo.stdout)
    n, p10, r100 = number(rf"followed by all (\d+) queries \(P@10 = {NUM}, R@100 = {NUM}")
    assert f"All {n} queries" in out
    table = table_values(cranfield_demo.stdout)
    assert f"{table['P@10'][0]:.4f}" == p10 and f"{table['R@100'][0]:.4f}" == r100
    k, f1 = number(rf"best mean F1 over queries: k = (\d+), mean F1 = {NUM}")
    assert f"k = {k}, mean F1 = {f1}." in out
    (f_of_means,) = number(rf"The F1 of the mean P and mean R there is {NUM}")
    assert f"the F1 of mean P, R, is {f_of_means}." in out


def test_demo_writes_the_files_the_readme_names(cranfield_demo) -> None:
    out = cranfield_demo.out
    text = section("The demo")
    for name in re.findall(r"`([\w.]+\.(?:trec|html))`", text):
        assert (out / name).stat().st_size > 0, name
    pngs = sorted(out.glob("*.png"))
    assert pngs and all(p.read_bytes()[:8] == PNG_MAGIC for p in pngs)  # "draws the figures"
    k1, b = number(rf"`run2\.trec`, BM25 with k1 = {NUM} and b = {NUM}")
    tag = (out / "run2.trec").open().readline().split()[5]
    assert f"k1-{k1}-b-{b}" in tag


def test_trec_eval_numbers_to_the_last_digit(cranfield_demo) -> None:
    """MAP and nDCG@10 (and P@10, R@100) as trec_eval 9.0.8, inside pytrec_eval-terrier."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import prfeval

    out = cranfield_demo.out
    qrels: dict[str, dict[str, int]] = {}
    for ln in (out / "qrels.trec").read_text().splitlines():
        q, _, d, g = ln.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    for ln in (out / "run.trec").read_text().splitlines():
        q, _, d, _, s, _ = ln.split()
        run.setdefault(q, {})[d] = float(s)
    names = {"map": "MAP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recall_100": "R@100"}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
    ours = prfeval.evaluate(qrels, run, " ".join(names.values())).macro
    for trec, ir in names.items():
        theirs = sum(v[trec] for v in per_query.values()) / len(per_query)
        assert ours[ir] == pytest.approx(theirs, abs=1e-12)
        assert f"{theirs:.4f}" == f"{README_TABLE[ir][0]:.4f}", ir
    m1, m2, v1, v2 = number(rf"its `(\w+)` and `(\w+)`, {NUM} and {NUM} here")
    assert (m1, m2) == ("map", "ndcg_cut_10")
    assert (v1, v2) == (f"{README_TABLE['MAP'][0]:.4f}", f"{README_TABLE['nDCG@10'][0]:.4f}")


# --- The shell lines ----------------------------------------------------------------------


def _check_evaluate(line: Line, out: str, err: str, folder: Path) -> None:
    if "-o" in line.argv:
        assert out == ""  # the result went to the file
        target = folder / line.argv[line.argv.index("-o") + 1]
        fmt = line.argv[line.argv.index("--format") + 1]
        assert fmt == "csv"
        docs = (ROOT / "docs" / "output.md").read_text(encoding="utf-8")
        header = re.search(r"- `csv`: a long, tidy table.*?```\n(.*?)\n", docs, re.S)
        assert header, "docs/output.md no longer shows the CSV header"
        text = target.read_text()
        assert text.splitlines()[0] == header.group(1).strip()
        rows = list(csv.DictReader(text.splitlines()))
        macro = {r["measure"]: float(r["value"]) for r in rows if r["aggregate"] == "macro"}
        for measure, values in README_TABLE.items():
            name = {"MAP": "AP"}.get(measure, measure)  # the default set names it AP
            if name in macro:
                assert f"{macro[name]:.4f}" == f"{values[0]:.4f}", measure
        if "-q" in line.argv:
            n = int(number(r"Queries evaluated: (\d+)", QUICK_START.output or "")[0])
            assert len({r["query_id"] for r in rows if not r["aggregate"]}) == n


def _check_curve(line: Line, out: str, err: str, folder: Path, drawn: list) -> None:
    query = line.argv[line.argv.index("--query") + 1]
    rows = rows_of(out)
    for k, (rel, p, r, f) in demo_rows().items():  # the demo's table, to 3 decimals
        got = rows[k]
        assert int(got[0]) == rel and [round(float(v), 3) for v in got[1:4]] == [p, r, f], k
    plot = folder / line.argv[line.argv.index("--plot") + 1]
    assert plot.read_bytes()[:8] == PNG_MAGIC
    # "--plot FILE draws the trade-off and the PR curve": both, in FILE.
    assert f"wrote {plot.name}: the trade-off plot and precision-recall curve" in err
    (fig,) = drawn
    titles = [ax.get_title() for ax in fig.axes]
    assert any(t.startswith("Precision, recall and F₁ by cutoff: query " + query) for t in titles)
    (pr,) = [ax for ax in fig.axes if ax.get_title().startswith("Precision-recall curve")]
    assert (pr.get_xlabel(), pr.get_ylabel()) == ("Recall", "Precision")
    assert any(len(ln.get_xdata()) > 1 for ln in pr.get_lines())


def _check_compare(line: Line, out: str, err: str, folder: Path) -> None:
    measures = line.argv[line.argv.index("-m") + 1].split()
    baseline = Path(line.argv[2]).name
    for ln in out.splitlines():
        words = ln.split()
        if words and words[0] in measures:
            assert words[1:3] == [baseline, "(baseline)"]
            want = README_TABLE[words[0]][:2]  # macro and micro, as evaluate gives them
            assert [float(w) for w in words[3:5]] == want
            measures.remove(words[0])
    assert not measures, f"compare printed no row for {measures}"
    assert Path(line.argv[3]).name in out


def _check_trec_eval(line: Line, out: str, err: str, folder: Path) -> None:
    # trec_eval's layout, "%-22s\t%s\t%s" (that it is trec_eval's output byte for byte is
    # test_trec_eval_cli.py's to show, against pytrec_eval).
    rows = [ln.split("\t") for ln in out.splitlines()]
    for r in rows:
        name = r[0].rstrip()
        assert len(r) == 3 and " " not in name and r[0] == f"{name:<22}", r
    summary = {r[0].strip(): r[2] for r in rows if r[1] == "all"}
    expected = {"map": "MAP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10"}
    for trec, measure in expected.items():
        assert summary[trec] == f"{README_TABLE[measure][0]:.4f}", trec
    if "-q" in line.argv:
        assert int(summary["num_q"]) == len({r[1] for r in rows if r[1] != "all"})
    else:
        assert list(summary) == ["map", "P_10", "ndcg_cut_10"]  # trec_eval's order


@pytest.mark.parametrize("line", SHELL_LINES, ids=[ln.text for ln in SHELL_LINES])
def test_shell_line(line: Line, in_demo_folder, capsys, figures) -> None:
    folder = in_demo_folder.folder
    code, out, err = run_cli(capsys, *line.argv)
    typo = re.search(r"did you mean '(\w+)'\?", line.comment)
    if typo:
        assert code == 2 and len(err.splitlines()) == 1
        assert f"did you mean {typo.group(1)!r}?" in err.lower()
        return
    assert code == 0, err
    assert "Traceback" not in err
    if line.output is not None:
        assert out == line.output, "the sample output drifted from what the command prints"
    checks = {"evaluate": _check_evaluate, "compare": _check_compare, "trec_eval": _check_trec_eval}
    if line.argv[0] == "curve":
        _check_curve(line, out, err, folder, figures)
    elif line.argv[0] in checks:
        checks[line.argv[0]](line, out, err, folder)
    else:
        pytest.fail(f"no check for the README's `{line.text}`")


def test_every_shell_block_was_read() -> None:
    commands = {ln.argv[0] for ln in SHELL_LINES}
    assert {"evaluate", "trec_eval", "curve", "compare"} <= commands
    assert [w[0] for w in SETUP_LINES] == ["make", "make", "source"]


def test_your_data_as_it_comes_gives_the_quick_starts_numbers() -> None:
    """The section's samples are all the demo's one run, as its prose says: a measure shown
    twice (in the quick start or the section) has the same values each time. That each sample
    is what its command prints is test_shell_line's to show."""
    title = "Your data as it comes"
    samples = [ln for ln in SHELL_LINES if ln.section == title and ln.output is not None]
    assert [ln.argv[0] for ln in samples] == ["evaluate"] * 4
    seen = dict(README_TABLE)
    for line in samples:
        shown = table_values(line.output or "")
        assert shown, line.text
        for measure, values in shown.items():
            assert seen.setdefault(measure, values) == values, (line.text, measure)
    assert ("the values are the quick start's (nDCG@10, R@100) and the column map's above "
            "(RR@10)") in prose(section(title))  # fmt: skip


# --- The Python block ---------------------------------------------------------------------

PYTHON_BLOCK = next(b.text for b in BLOCKS if b.lang == "python")


def _matches(value: float, quoted: str) -> bool:
    """``0.333...``: the value truncated to the digits shown; ``0.75``: rounded to them."""
    digits = len(quoted.rstrip(".").split(".")[1])
    shown = float(quoted.rstrip("."))
    if quoted.endswith("..."):
        return math.floor(value * 10**digits + 1e-9) / 10**digits == pytest.approx(shown)
    return round(value, digits) == pytest.approx(shown)


def _flat(value: object) -> list[float]:
    return [float(v) for v in (value if isinstance(value, tuple) else (value,))]


def test_python_block(in_demo_folder, capsys) -> None:
    source = PYTHON_BLOCK
    lines = source.splitlines()
    namespace: dict[str, object] = {}
    values: dict[str, object] = {}  # each expression statement's source -> its value
    checked = 0
    for node in ast.parse(source).body:
        text = ast.get_source_segment(source, node) or ""
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), "README.md", "eval"), namespace)
            values[text] = value
            comment = lines[node.lineno - 1].partition("#")[2]
            quoted = re.findall(r"(?<![\w.])(\d+\.\d+(?:\.\.\.)?)", comment.split(":")[0])
            if quoted:
                got = _flat(value)
                assert len(got) == len(quoted), text
                assert all(_matches(v, q) for v, q in zip(got, quoted, strict=True)), (text, got)
                checked += 1
        else:
            exec(compile(ast.Module([node], []), "README.md", "exec"), namespace)
    assert checked == 6  # recall_at_k's 0.333..., the sets' 0.75s, AP and ROC AUC's, and the
    # weighted accuracy, top-k and log-loss, and Brier lines
    printed = capsys.readouterr().out

    # The evaluation: the quick start's table, from Python.
    e = namespace["e"]
    assert round(e.macro["R@100"], 4) == README_TABLE["R@100"][0]  # type: ignore[attr-defined]
    assert round(e.micro["R@100"], 4) == README_TABLE["R@100"][1]  # type: ignore[attr-defined]
    frame = values["e.to_frame()"]
    (columns,) = re.findall(r"long format: ([\w, ]+)", source)
    assert list(frame.columns) == [c.strip() for c in columns.split(",")]  # type: ignore[attr-defined]
    # The best cutoffs: the demo's query 2 and its macro average, as the README says.
    best_q, best_all = values['c["2"].best, c.macro.best']  # type: ignore[misc]
    k, f1 = number(rf"Best F1: {NUM} at k = (\d+)")[::-1]
    assert (best_q.k, f"{best_q.f:.3f}") == (int(k), f1)
    k, f1 = number(rf"best mean F1 over queries: k = (\d+), mean F1 = {NUM}")
    assert (best_all.k, f"{best_all.f:.3f}") == (int(k), f1)
    # The comparison's Markdown: "deltas, CIs, p-values, marks".
    assert "| Δ macro | CI | d_z | p | p adj. | sig." in printed and "†" in printed
    # "like scikit-learn" and "scikit-learn's", with the README's own inputs.
    calls = {
        n.value.func.attr: [ast.literal_eval(a) for a in n.value.args]
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Attribute)
        and n.value.func.attr in ("classify", "score_measures")
    }  # fmt: skip
    metrics = pytest.importorskip("sklearn.metrics")
    y_true, y_pred = calls["classify"]
    r = namespace["r"]
    for average in ("macro", "micro", "weighted"):
        p, rec, f, _ = metrics.precision_recall_fscore_support(y_true, y_pred, average=average)
        got = getattr(r, average)
        assert (got["precision"], got["recall"], got["f"]) == pytest.approx((p, rec, f))
    assert r.balanced_accuracy == pytest.approx(  # type: ignore[attr-defined]
        metrics.balanced_accuracy_score(y_true, y_pred)
    )
    labels, scores = calls["score_measures"]
    ap, auc = values["s.average_precision, s.roc_auc"]  # type: ignore[misc]
    assert ap == pytest.approx(metrics.average_precision_score(labels, scores))
    assert auc == pytest.approx(metrics.roc_auc_score(labels, scores))
    _check_sets_as_gold(source, namespace)


#: The measures of the README's sets example, as pytrec_eval names them.
PYTREC_NAMES = {"R@2": "recall_2", "RR": "recip_rank", "P@2": "P_2"}


def _check_sets_as_gold(source: str, namespace: dict[str, object]) -> None:
    """Gold as a set and as a list, runs as ranked lists: pytrec_eval's values on the same
    data written here as TREC text (a ranked list of n as scores n, n - 1, ..., 1)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    assigned = {
        n.targets[0].id: n.value for n in ast.parse(source).body
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)
    }  # fmt: skip
    gold = ast.literal_eval(assigned["gold"])
    assert {type(docs) for docs in gold.values()} == {set, list}  # both shapes are shown
    call = assigned["g"]
    assert isinstance(call, ast.Call) and ast.unparse(call.func) == "prfeval.evaluate"
    assert ast.unparse(call.args[0]) == "gold"
    ranked, measures = (ast.literal_eval(a) for a in call.args[1:3])
    qrels_text = "".join(f"{q} 0 {d} 1\n" for q, docs in gold.items() for d in sorted(docs))
    run_text = "".join(f"{q} Q0 {d} {i} {len(docs) - i + 1} r\n"
                       for q, docs in ranked.items() for i, d in enumerate(docs, 1))  # fmt: skip
    qrels: dict[str, dict[str, int]] = {}
    for q, _, d, grade in map(str.split, qrels_text.splitlines()):
        qrels.setdefault(q, {})[d] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for q, _, d, _, score, _ in map(str.split, run_text.splitlines()):
        run.setdefault(q, {})[d] = float(score)
    names = {m: PYTREC_NAMES[m] for m in measures.split()}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
    g = namespace["g"]
    for label, name in names.items():
        for q, got in theirs.items():
            assert g.per_query[q][label] == pytest.approx(got[name], abs=1e-12), (q, label)  # type: ignore[attr-defined]
        mean = sum(got[name] for got in theirs.values()) / len(theirs)
        assert g.macro[label] == pytest.approx(mean, abs=1e-12), label  # type: ignore[attr-defined]


def test_the_other_python_the_readme_shows(in_demo_folder) -> None:
    """The incomplete-judgments section's calls, after the block's qrels and run."""
    import prfeval

    text = section("When judgments are incomplete")
    qrels, run = "prfeval-demo/qrels.trec", "prfeval-demo/run.trec"
    spans = [s for s in code_spans(text) if "prfeval." in s or s.startswith("e.")]
    namespace: dict[str, object] = {"prfeval": prfeval, "qrels": qrels, "run": run}
    for span in spans:
        exec(span if "=" in span.split("(")[0] else f"_ = {span}", namespace)
    e = namespace["e"]
    # With every unjudged document relevant, precision can only grow: the true value is between.
    assert e.upper.macro["P@10"] >= e.macro["P@10"]  # type: ignore[attr-defined]
    assert namespace["_"] is not None


# --- The Commands table and the options the README names ---------------------------------


def _help_options(help_text: str) -> dict[str, set[str] | None]:
    """Each option of a click --help: its choices, or None."""
    options: dict[str, set[str] | None] = {}
    for ln in help_text.splitlines():
        m = re.match(r"^  (-\S.*?)(?:\s{2,}|$)", ln)
        if not m:
            continue
        spec = m.group(1)
        choices = re.search(r"\[([\w.-]+(?:\|[\w.-]+)+)\]", spec)  # [a|b|c]
        for name in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", spec.split("[")[0]):
            options[name] = set(choices.group(1).split("|")) if choices else None
    return options


def _named_options(span: str) -> list[tuple[str, list[str]]]:
    """The options a code span names, each with the values shown after it (``a|b``)."""
    found = []
    words = span.replace("\\|", "|").split()
    for i, word in enumerate(words):
        if re.fullmatch(r"--?[A-Za-z][\w-]*", word.strip("[],;")):
            value = words[i + 1] if i + 1 < len(words) else ""
            values = value.split("|") if re.fullmatch(r"[a-z][\w|]*", value) else []
            found.append((word.strip("[],;"), values))
    return found


#: Where the README names options outside the Commands table, and whose they are.
SECTIONS = {
    "Conventions (each one is tested)": "evaluate",
    "When judgments are incomplete": "evaluate",
    "A report to share": "report",
    "In CI": "gate",
    "One question at a time": "run-retriever",
    "Large runs": "evaluate",
    "On Apache Spark": "evaluate",
}


def _claims() -> list[tuple[str, str, list[str]]]:
    """(command, option, values) for every option the README names."""
    claims = []
    for template, what in table_rows("Commands"):
        (command,) = re.findall(r"`prfeval ([\w-]+)", template)
        for span in code_spans(template + " " + what):
            claims += [(command, o, v) for o, v in _named_options(span)]
    for title, default in SECTIONS.items():
        # The inline code of the prose (a fenced block's lines are other programs' too).
        text = re.sub(r"^```.*?^```[ \t]*$", "", section(title), flags=re.S | re.M)
        for span in code_spans(text):
            named = re.match(r"prfeval ([\w-]+)", span)
            command = named.group(1) if named else default
            claims += [(command, o, v) for o, v in _named_options(span)]
    return claims


def test_every_command_and_option_the_readme_names_exists(capsys) -> None:
    helps: dict[str, dict[str, set[str] | None]] = {}
    claims = _claims()
    commands = {c for c, *_ in claims} | {
        re.findall(r"`prfeval ([\w-]+)", row[0])[0] for row in table_rows("Commands")
    }
    for command in sorted(commands):
        code, out, err = run_cli(capsys, command, "--help")
        assert code == 0, f"prfeval {command} --help: {err}"
        helps[command] = _help_options(out)
    evaluate_options = {o for c, o, _ in claims if c == "evaluate"}
    assert {"-m", "-q", "--bounds", "--stream", "--format", "-o"} <= evaluate_options
    for command, option, values in claims:
        assert option in helps[command], f"README: prfeval {command} {option}; --help has none"
        choices = helps[command][option]
        if choices is not None:
            missing = [v for v in values if v not in choices]
            assert not missing, f"prfeval {command} {option} has no choice {missing}"


#: The bundled leakage example (the README's "Eval questions kept aside stay aside").
LEAKAGE = ROOT / "src" / "prfeval" / "data" / "leakage"
#: The measures the gate row is run with: P@k and R@k, which the test counts by hand.
GATED = "P@10 R@100"
#: The queries the run-retriever row asks, MS MARCO's ``qid<TAB>text``: no word twice in one
#: query, since the retriever (``str.split``) returns the words as ids and a repeat is refused.
RETRIEVER_QUERIES = "1\tboundary layer flow\n2\theat transfer at hypersonic speeds\n"


def _table_argv(template: str, folder: Path) -> list[str]:
    """A Commands-table synopsis with its placeholders filled in on the demo's files."""
    words = shlex.split(re.sub(r"\[[^\[\]]*\]", "", re.sub(r"\[[^\[\]]*\]", "", template)))
    fill = {
        "QRELS": ["prfeval-demo/qrels.trec"], "RUN": ["prfeval-demo/run.trec"],
        "RUN...": ["prfeval-demo/run.trec"], "RUN_A": ["prfeval-demo/run.trec"],
        "RUN_B...": ["prfeval-demo/run2.trec"], "RUN_B": ["prfeval-demo/run2.trec"],
        "Q": ["2"], "FILE": ["labels.csv"],
        "N": ["1"], "DIR": ["split"],
        # gate: run2.trec, BM25 at k1 = 0.9, b = 0.4, is the baseline run.trec beats on both
        # measures (counted by hand in the check below), so the gate passes and exits 0.
        "BASELINE": ["prfeval-demo/run2.trec"], "CANDIDATE": ["prfeval-demo/run.trec"],
        "MEASURES": [GATED],
        "CORPUS": [str(LEAKAGE / "corpus.jsonl")], "ITEMS": [str(LEAKAGE / "questions.jsonl")],
        "MODULE:ATTR": ["builtins:str.split"],
    }  # fmt: skip
    # run-retriever reads queries (FILE) and writes a run (RUN): never onto the demo's run.
    fill |= {"run-retriever": {"FILE": ["queries.tsv"], "RUN": ["retrieved.trec"]}}.get(
        words[1], {}
    )
    argv: list[str] = []
    for i, word in enumerate(words[1:], 1):
        if word == "COL":
            argv.append(words[i - 1].removeprefix("--"))  # --true COL -> the column "true"
        elif word in fill:
            argv += fill[word]
        elif re.fullmatch(r"[A-Z_:]+(\.\.\.)?", word):
            pytest.fail(f"a placeholder this test does not know: {word}")
        else:
            argv.append(word)
    return argv


def _hand_p_r(folder: Path, run_name: str, ks: tuple[int, int]) -> tuple[float, float]:
    """Macro P@k1 and R@k2 of a demo run, counted by hand from the TREC text (relevant:
    grade >= 1; the run's rank column, which write_run makes the evaluated order)."""
    relevant: dict[str, set[str]] = {}
    for q, _, d, grade in map(str.split, (folder / "prfeval-demo/qrels.trec").read_text()
                              .splitlines()):  # fmt: skip
        relevant.setdefault(q, set())
        if int(grade) >= 1:
            relevant[q].add(d)
    depth = max(ks)
    top: dict[str, list[tuple[int, str]]] = {}
    for q, _, d, rank, _, _ in map(str.split, (folder / run_name).read_text().splitlines()):
        if int(rank) <= depth:
            top.setdefault(q, []).append((int(rank), d))
    queries = sorted(set(top) & set(relevant))
    hits = {q: [d in relevant[q] for _, d in sorted(top[q])] for q in queries}
    p = sum(sum(hits[q][: ks[0]]) / ks[0] for q in queries) / len(queries)
    r = sum(sum(hits[q][: ks[1]]) / len(relevant[q]) if relevant[q] else 0.0
            for q in queries) / len(queries)  # fmt: skip
    return p, r


def _brute_leaks(corpus: Path, items: Path, field: str, threshold: float) -> dict[str, tuple]:
    """Item id -> (document, shared 3-grams, the item's 3-grams) for every leaking item, from
    the definition: words are runs of letters and digits after NFKC and lowercasing, and
    containment(q, d) = |G(q) & G(d)| / |G(q)| over every document, the best one kept."""

    def grams(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text).lower())
        return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}

    def records(path: Path) -> list[dict]:
        return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines()]

    docs = {r["_id"]: grams(r["text"]) for r in records(corpus)}
    leaks = {}
    for item in records(items):
        g = grams(item[field])
        if not g:  # fewer than 3 words: counted, not checked
            continue
        shared, doc = max((len(g & dg), d) for d, dg in docs.items())
        if shared / len(g) >= threshold:
            leaks[item["_id"]] = (doc, shared, len(g))
    return leaks


TABLE = [row for row in table_rows("Commands") if not row[0].startswith("`prfeval demo")]


@pytest.mark.parametrize("row", TABLE, ids=[re.findall(r"prfeval ([\w-]+)", r[0])[0]
                                            for r in TABLE])  # fmt: skip
def test_commands_table_runs_on_the_demo_data(row: list[str], in_demo_folder, capsys) -> None:
    """Each command of the table, as its synopsis shows it (``prfeval demo``: the fixture)."""
    folder = in_demo_folder.folder
    (template,) = re.findall(r"`(prfeval [^`]+)`", row[0])
    argv = _table_argv(template, folder)
    name = argv[0]
    if name == "classify":  # the labels of the README's own Python example
        y_true, y_pred = (
            ast.literal_eval(a)
            for a in re.search(r"prfeval\.classify\((\[.*?\]), (\[.*?\])\)", PYTHON_BLOCK).groups()
        )
        (folder / "labels.csv").write_text(
            "true,pred\n" + "".join(f"{t},{p}\n" for t, p in zip(y_true, y_pred, strict=True))
        )
    if name == "run-retriever":
        (folder / argv[argv.index("--queries") + 1]).write_text(RETRIEVER_QUERIES)
    if name == "leakage":
        # The bundled example leaks, and by default (--max-leaks 0) that is exit 1, as the
        # README's leakage section says; with --max-leaks at the leaks counted by brute
        # force the same command passes.
        leaks = _brute_leaks(LEAKAGE / "corpus.jsonl", LEAKAGE / "questions.jsonl", "text", 0.6)
        assert leaks and "--max-leaks" in row[1] and "(0 by default)" in row[1]
        code, out, err = run_cli(capsys, *argv)
        assert code == 1, err
        assert re.search(rf"{len(leaks)} items? leaks? into the corpus, more than --max-leaks 0",
                         err), err  # fmt: skip
        argv += ["--max-leaks", str(len(leaks))]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    text = prose(out + " " + err)
    if name == "explain":
        f1, k, p, r = number(rf"Best F1: {NUM} at k = (\d+) \(P = {NUM}, R = {NUM}\)")
        got = re.search(rf"Best F1: {NUM} at k = (\d+) \(P = {NUM}, R = {NUM}\)", text)
        assert got and got.group(2) == k
        assert [f"{float(g):.3f}" for g in got.group(1, 3, 4)] == [f1, p, r]
        level, rank = number(rf"Recall first reaches {NUM} at rank (\d+)")
        assert f" {level} at rank {rank} " in text
    elif name == "means":
        for pair in argv[1:]:
            p, r = (float(v) for v in pair.split(","))
            row_values = [p, r, (p + r) / 2, math.sqrt(p * r), 2 * p * r / (p + r)]
            assert " ".join(f"{v:.3f}" for v in row_values) in text
    elif name == "contours":
        betas = [float(b) for b in argv[argv.index("--beta") + 1 : argv.index("--point")]]
        pr = argv[argv.index("--point") + 1].partition("=")[2]
        p, r = (float(v) for v in pr.split(","))
        for b in betas:
            f = (1 + b * b) * p * r / (b * b * p + r)
            assert f"F{b:g}={f:.3f}" in text
        (written,) = re.findall(r"wrote (\S+?):", text)
        assert (folder / written).read_bytes()[:8] == PNG_MAGIC
    elif name == "classify":
        assert "fits an 80-column terminal" in row[1]
        assert max(len(ln) for ln in out.splitlines()) <= 80
    elif name == "report":
        page = (folder / argv[argv.index("-o") + 1]).read_text(encoding="utf-8")
        assert page.lstrip().lower().startswith("<!doctype html")
        assert "<svg" in page  # the figures, inline
        # "opens from disk, with no network": nothing loaded from elsewhere.
        assert not re.search(r"""<(script|img|link|iframe)[^>]*(src|href)=["']?(https?:)?//""",
                             page, re.I)  # fmt: skip
        assert (in_demo_folder.out / "report.html").stat().st_size > 0  # and the demo's own
    elif name == "gate":
        # The gate's means are the hand counts of both runs; every measure rose, so it passed.
        ks = tuple(int(m.split("@")[1]) for m in GATED.split())
        assert [m.split("@")[0] for m in GATED.split()] == ["P", "R"]
        base = _hand_p_r(folder, argv[2], ks)  # type: ignore[arg-type]
        cand = _hand_p_r(folder, argv[3], ks)  # type: ignore[arg-type]
        shown = {w[0]: w[1:] for w in map(str.split, out.splitlines()) if w and w[0] in GATED}
        assert list(shown) == GATED.split()
        for measure, b, c in zip(GATED.split(), base, cand, strict=True):
            # measure, baseline, candidate, delta [low, high], worse/better/tied, budget, ...
            baseline, candidate, delta, _low, _high, _counts, budget, *_, verdict = (
                shown[measure])
            assert (baseline, candidate) == (f"{b:.4f}", f"{c:.4f}"), measure
            assert float(delta) == pytest.approx(c - b, abs=1e-4) and c > b, measure
            assert (budget, verdict) == ("0", "pass"), measure  # the default budget: 0
        assert out.startswith("prfeval gate: pass")
    elif name == "leakage":
        rows = re.findall(r"^  (\S+)\s+text\s+(\S+)\s+(\d\.\d{3})\s+(\d+) of (\d+)$", out, re.M)
        assert {i: (d, int(s), int(n)) for i, d, _, s, n in rows} == leaks
        for i, _, c, s, n in rows:
            assert c == f"{int(s) / int(n):.3f}", i
    elif name == "run-retriever":
        # str.split answers each query with its words, best first, and no scores: rank 1 to
        # k, score k - rank + 1, the tag the attribute's name.
        k = int(re.search(r"`--k (\d+)`", row[1]).group(1))
        tag = argv[argv.index("--retriever") + 1].rpartition(".")[2]
        expected = "".join(
            f"{qid} Q0 {word} {rank} {k - rank + 1} {tag}\n"
            for qid, text in (ln.split("\t") for ln in RETRIEVER_QUERIES.splitlines())
            for rank, word in enumerate(text.split(), 1)
        )
        assert (folder / argv[argv.index("-o") + 1]).read_text() == expected
    elif name == "split":
        out_dir = folder / argv[argv.index("--out") + 1]
        held = len((out_dir / "heldout.queries").read_text().split())
        dev = len((out_dir / "dev.queries").read_text().split())
        assert (out_dir / "dev.qrels").exists() and (out_dir / "heldout.qrels").exists()
        assert held / (held + dev) == pytest.approx(float(argv[argv.index("--holdout") + 1]),
                                                    abs=0.05)  # fmt: skip


# --- Exit codes and messages --------------------------------------------------------------


def test_an_input_error_is_the_one_line_the_readme_shows(in_demo_folder, capsys) -> None:
    (message,) = re.findall(r"e\.g\. `(prfeval: [^`]+)`", prose(section("Commands")))
    name, line, fields, got = re.fullmatch(
        r"prfeval: (\S+):(\d+): expected at least (\d+) fields, got (\d+)", message
    ).groups()
    good = (in_demo_folder.out / "run.trec").read_text().splitlines()[: int(line) - 1]
    bad = " ".join(["1", "Q0", "x", "1", "1.0", "tag"][: int(got)])
    Path(name).write_text("\n".join([*good, bad]) + "\n")
    assert int(fields) == 6
    code, out, err = run_cli(capsys, "evaluate", "prfeval-demo/qrels.trec", name)
    assert (code, out, err) == (2, "", message + "\n")


def test_exit_141_when_the_reader_of_stdout_goes_away(in_demo_folder) -> None:
    """``prfeval evaluate -q ... | head``: the reader reads a little and leaves.

    The output must be larger than the pipe's buffer (64 KiB on Linux), or the command has
    written all of it before the reader leaves and rightly exits 0, as ``seq`` would:
    trec_eval's layout of every query's values is about 125 KB."""
    assert "141 when the reader of stdout goes away" in prose(README)
    process = subprocess.Popen(
        [sys.executable, "-m", "prfeval", "evaluate", "-q", "--format", "trec",
         "prfeval-demo/qrels.trec", "prfeval-demo/run.trec"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    first = process.stdout.read(100)
    process.stdout.close()
    _, err = process.communicate(timeout=120)
    assert first.startswith(b"NumQ")
    assert process.returncode == 128 + signal.SIGPIPE, err
    assert b"Traceback" not in err


# --- The measures the README names --------------------------------------------------------


def test_every_measure_name_the_readme_shows_parses() -> None:
    import prfeval

    text = section("Measures")
    names_part = text[text.index("Names parse as") : text.index("The full list")]
    names = [s for s in code_spans(names_part) if not s.startswith("-m")]
    names += code_spans(text[text.index("TN-based") :])
    for name in names:
        assert prfeval.parse_measures(name), name
    (nine,) = re.findall(r"`P` alone for its (\w+) cutoffs", prose(text))
    assert nine == "nine" and len(prfeval.parse_measures("P")) == 9
    assert "-m \"P@10 MAP nDCG@10\"" in code_spans(names_part)[-1]
    assert len(prfeval.parse_measures("P@10 MAP nDCG@10")) == 3


def test_the_set_f_trap() -> None:
    """`set_F.2` is F with beta = √2; `SetF(beta=2)` is the true F2 = 5PR / (4P + R)."""
    import prfeval

    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    run = {"q": {"a": 3.0, "x": 2.0, "y": 1.0}}  # P = 1/3, R = 1/4
    macro = prfeval.evaluate(qrels, run, "set_F.2 SetF(beta=2) SetF(beta=1.4142135623730951)").macro
    p, r = 1 / 3, 1 / 4
    assert macro["SetF(beta=2)"] == pytest.approx(5 * p * r / (4 * p + r))
    assert macro["set_F.2"] == pytest.approx(macro["SetF(beta=1.4142135623730951)"])
    assert "beta = √2 ≈ 1.414" in README and "5PR / (4P + R)" in README
