"""The shared report: one self-contained HTML file of a study or of a classifier.

Everything the page needs is inside it: styles, scripts, figures (inline SVG, text kept as
text) and data, with a Content-Security-Policy that forbids the page from loading anything
else, so it opens from disk with no network, today and in ten years. Every number of the
summary and the comparison, and of the per-query table up to :data:`HTML_ROWS` queries, is in
the HTML as text, readable, searchable and printable with scripts off; the small inline script
adds sorting, filtering and the per-query drill-down, whose data (each query's top ranks in
each run, and each query's values) sits in the page as compressed columns
(:mod:`prfeval._report.drilldown`), decoded when first needed. Above :data:`HTML_ROWS` queries
the script also writes the per-query rows from those columns, which keeps a page of 10,000
queries a fraction of the size.
"""

from __future__ import annotations

import html
import importlib.util
import json
import math
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import Any

from prfeval._classification.result import ClassificationResult
from prfeval._classification.thresholds import ThresholdSweep
from prfeval._comparison.results import Comparison
from prfeval._comparison.sizing import MeasurePower, size_differences
from prfeval._comparison.study import Study
from prfeval._plots.figures import run_color
from prfeval._report._text import fmt_p, fmt_signed
from prfeval._report.comparison_tables import describe_test, disagreement_lines, effect_text
from prfeval._report.drilldown import drilldown_data
from prfeval._report.figures import FigureDrawer, figure_html, study_figures

__all__ = ["HTML_ROWS", "render_classification", "render_study"]

#: Up to this many queries the per-query rows are in the HTML; above it, the page's script
#: writes them from the drill-down's columns.
HTML_ROWS = 2000

_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; font-src data:"
)

def _asset(name: str) -> str:
    return resources.files("prfeval._report").joinpath("assets", name).read_text("utf-8")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def _td(text: str, value: float | None = None, cls: str = "") -> str:
    data = "" if value is None or math.isnan(value) else f' data-value="{value!r}"'
    klass = f' class="{cls}"' if cls else ""
    return f"<td{klass}{data}>{text}</td>"


def _swatch(index: int) -> str:
    """The run's colour (:func:`~prfeval._plots.figures.run_color`, by its position in the
    study), as a square before its name: the figures draw the run in the same colour."""
    return f'<span class="swatch" style="--run: {run_color(index)}"></span>'


def _run_name(index: int, name: str) -> str:
    return f'<span class="run-name">{_swatch(index)}{_e(name)}</span>'


# Differences closer to 0 than this are ties, as compare counts them (floating-point noise
# of a mean of equal values, not a difference).
_TIE = 1e-12


def _direction(sign: int, delta: float) -> str:
    """``"better"``, ``"worse"`` or ``""``: a run's difference from the baseline read by the
    measure's direction (``sign``: 1 higher is better, -1 lower is better, 0 a count)."""
    if sign == 0 or math.isnan(delta) or abs(delta) <= _TIE:
        return ""
    return "better" if sign * delta > 0 else "worse"


# The direction in text, not in colour alone: an arrow, named for a screen reader.
_ARROW = {"better": "\u25b2", "worse": "\u25bc"}


def _arrow(direction: str) -> str:
    if not direction:
        return ""
    return (
        f' <span class="dir" role="img" aria-label="{direction}" '
        f'title="{direction} than the baseline">{_ARROW[direction]}</span>'
    )


# Inside a <script> element the HTML parser looks for "</script" and, after "<!--", for
# "<script" too (a doc id "<!--<script>" would swallow the rest of the page into the
# element, and the page's own script with it). No "<" may reach the page unescaped, nor
# ">" and "&", which JSON reads the same as their \u escapes.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def _script_json(data: Any) -> str:
    """``data`` as JSON to put inside a ``<script>`` element, whatever its strings hold.

    Every ``<``, ``>`` and ``&`` is written as its ``\\u`` escape, which ``JSON.parse``
    reads back as the character: no ``</script>``, ``<!--`` or ``-->`` can appear in the
    element, and the ids come back exactly. NaN is refused (it is not JSON).
    """
    return json.dumps(data, separators=(",", ":"), allow_nan=False).translate(_SCRIPT_SAFE)


def _payload(data: Any) -> str:
    """The drill-down data as the page's JSON script element."""
    return f'<script type="application/json" id="drilldown-data">{_script_json(data)}</script>\n'


def _page(title: str, header: str, sections: Sequence[str], payload: str = "") -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        f"<title>{_e(title)}</title>\n<style>\n{_asset('report.css')}</style>\n</head>\n<body>\n"
        f"{header}\n" + "\n".join(sections) + "\n" + payload
        + f"<script>\n{_asset('report.js')}</script>\n</body>\n</html>\n"
    )


def _provenance(items: Iterable[tuple[str, object]]) -> str:
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items if v not in (None, ""))
    return f'<dl class="provenance">{rows}</dl>'


# --------------------------------------------------------------------------------------------
# Retrieval


def render_study(
    s: Study,
    *,
    figures: bool = True,
    drawer: FigureDrawer | None = None,
    html_rows: int = HTML_ROWS,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """The HTML page of a :class:`~prfeval._comparison.study.Study`.

    With a ``drawer`` (:class:`~prfeval._report.figures.FigureDrawer`), the figures are drawn
    in its process while this one writes the rest of the page. With more than ``html_rows``
    queries, the per-query rows are left to the page's script. ``progress(done, 3)`` is
    called as the tables, the drill-down data and the figures are done.
    """
    step = progress or (lambda done, total: None)
    drawn = None
    if figures:
        drawn = drawer.draw(s) if drawer is not None else None
    names = s.names
    p = s.provenance
    title = "prfeval report: " + " vs ".join(names)
    settings = s.comparison.settings
    header = (
        f"<header><h1>{_e(title)}</h1>"
        + _provenance(
            [
                ("runs", "; ".join(f"{n}: {path}" for n, path in p["runs"].items())),
                ("judgments", p["qrels"]),
                ("made", f"{p['created']} by prfeval {p['prfeval']}"),
                ("queries", _queries_line(s)),
                ("query set", settings.get("query_set")),
                ("ranking", _ranking_line(settings)),
                ("relevant", f"grade >= {settings.get('level')}"),
                ("duplicates", _duplicates_line(settings.get("duplicates"))),
                ("unjudged", _unjudged_line(settings)),
            ]
        )
        + '<nav><a href="#summary">Summary</a>'
        + ('<a href="#comparison">Comparison</a>' if len(names) > 1 else "")
        + '<a href="#queries">Per query</a>'
        + ('<a href="#figures">Figures</a>' if figures else "")
        + "</nav></header>"
    )
    sections = [_summary(s)]
    if len(names) > 1:
        sections.append(_comparison(s))
    rows_in_html = len(s.comparison.query_ids) <= html_rows
    sections.append(_per_query(s, rows_in_html))
    step(1, 3)
    data = drilldown_data(s)  # while the figures are drawn
    if not rows_in_html:
        data["table"] = _table_spec(s)
    payload = _payload(data)
    step(2, 3)
    if figures:
        sections.append(drawn.result() if drawn is not None else study_figures(s))
    step(3, 3)
    return _page(title, header, sections, payload)


def _queries_line(s: Study) -> str:
    q = s.comparison.queries
    more = " ".join(q.describe()[1:3])
    return f"{len(q.compared)} compared, paired by query id" + (f"; {more}" if more else "")


def _ranking_line(settings: dict[str, Any]) -> str:
    order = settings.get("order") or "score"
    rule = {
        "score": "by score, ties broken by doc id descending (as trec_eval)",
        "rank": "by the rank column",
        "file": "in file order",
    }.get(order, order)
    extra = []
    if settings.get("max_results"):
        extra.append(f"at most {settings['max_results']} per query (-M)")
    return ", ".join([rule, *extra])


def _duplicates_line(policy: object) -> str:
    return {
        "keep": "a repeated document takes a place each time and counts once",
        "first": "repeats removed, the first kept",
        "error": "a repeated document is an error",
    }.get(str(policy), str(policy))


def _unjudged_line(settings: dict[str, Any]) -> str:
    rule = settings.get("unjudged", "nonrelevant")
    if rule == "relevant":
        return f"counted relevant, at grade {settings.get('unjudged_grade')}"
    if rule == "drop":
        return "removed before measuring (-J)"
    return "counted non-relevant (as trec_eval)"


def _best_runs(s: Study, label: str) -> set[str]:
    from prfeval._report.comparison_tables import best_runs

    return best_runs(s.comparison, label) if len(s.runs) > 1 else set()


def _summary(s: Study) -> str:
    c = s.comparison
    confidence = c.settings["confidence"]
    rows = []
    for label in c.labels:
        best = _best_runs(s, label)
        for i, r in enumerate(s.runs):
            m = c.measures[c.labels.index(label)]
            e = r.evaluation
            total = m.definition.is_total
            macro = e.macro[label]
            interval = r.intervals.get(label)
            judged = r.coverage.judged.get(m.k) if m.k is not None else None
            cls = "best" if r.name in best else ""
            rows.append(
                f'<tr class="{"group-start" if i == 0 else ""}">'
                + _td(_e(label) if i == 0 else "", None, "text")
                + _td(_run_name(i, r.name), None, "text")
                + _td(_num(macro, 0 if total else 4) + (" (total)" if total else ""), macro, cls)
                + _td(
                    "" if interval is None else f"[{_num(interval[0])}, {_num(interval[1])}]",
                    None if interval is None else interval[0],
                )
                + _td(_num(e.micro[label]) if label in e.micro else "", e.micro.get(label))
                + _td(
                    _num(e.f_of_means[label]) if label in e.f_of_means else "",
                    e.f_of_means.get(label),
                )
                + _td("" if judged is None else f"{judged:.0%}", judged)
                + "</tr>"
            )
    rule = c.settings.get("unjudged", "nonrelevant")
    thin = [f"{r.name}: {note}" for r in s.runs for note in r.coverage.thin(c.measures, rule)]
    return (
        '<section id="summary"><h2>Summary</h2>'
        '<div class="scroll"><table class="summary"><thead><tr>'
        '<th class="text">measure</th><th class="text">run</th><th>macro</th>'
        f"<th>{confidence:.0%} interval of the macro</th><th>micro</th><th>F of mean P, R</th>"
        "<th>judged in the top k</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
        + '<p class="legend">macro: the mean over queries, so for an F the mean F, and for a '
        "count the total; interval: "
        f"a bootstrap of the queries, {c.settings['n_bootstrap']:,} resamples; micro: the "
        "measure of the counts pooled over queries; F of mean P, R: the F of the macro "
        "precision and the macro recall; judged: the mean share of judged documents in the top "
        "k of each query, Judged@k."
        + (" \u2605 the best run for the measure." if len(s.runs) > 1 else "")
        + "</p>"
        + "".join(f'<p class="note">{_e(n)}</p>' for n in dict.fromkeys(thin))
        + "</section>"
    )


def _p(value: float) -> str:
    return _e(fmt_p(value))


def _sizes(c: Comparison) -> dict[tuple[str, str], MeasurePower] | None:
    """Each tested (measure, run)'s power and detectable difference at the comparison's
    alpha and power 0.8; ``None`` without scipy (the report is whole without them)."""
    if importlib.util.find_spec("scipy") is None:
        return None
    alpha = c.settings["alpha"]
    return {
        (r.measure, r.run): size_differences(
            r.measure, c.differences(r.measure, r.run), alpha=alpha, power=0.8
        )
        for r in c.rows
        if r.wins is not None
    }


def _comparison(s: Study) -> str:
    c = s.comparison
    confidence = f"{c.settings['confidence']:.0%} interval"
    sizes = _sizes(c)
    rows = []
    for label, m in zip(c.labels, c.measures, strict=True):
        sign = m.definition.direction
        for i, run in enumerate(c.runs):
            r = c.row(label, run)
            total = r.aggregation == "sum"
            tested = r.wins is not None
            # Better or worse by the measure's direction, not by the sign of the difference
            # (a fall in Fallout is a gain); the dagger only says the test rejected equality.
            way = "" if r.is_baseline else _direction(sign, r.delta)
            sig = ""
            if r.significant:
                sig = "\u2020" + (f" {way}" if way else "") + _arrow(way)
            rows.append(
                f'<tr class="{"group-start" if i == 0 else ""}">'
                + _td(_e(label) if i == 0 else "", None, "text")
                + _td(_run_name(i, run) + (" (baseline)" if r.is_baseline else ""), None,
                      "text")
                + _td(_num(r.macro, 0 if total else 4), r.macro)
                + _td("" if total else _num(r.micro), None if total else r.micro)
                + _td("" if r.is_baseline else fmt_signed(r.delta, 0 if total else 4) + _arrow(way),
                      None if r.is_baseline else r.delta, f"delta {way}".strip())
                + _td(f"[{fmt_signed(r.ci_low)}, {fmt_signed(r.ci_high)}]" if tested else "")
                + _td(_e(effect_text(r.effect_size)) if tested else "",
                      r.effect_size if tested and math.isfinite(r.effect_size) else None)
                + _power_cells(sizes, r.measure, r.run)
                + _td(_p(r.p_value) if tested else "", r.p_value if tested else None)
                + _td(_p(r.p_adjusted) if tested else "", r.p_adjusted if tested else None)
                + _td(sig, None, f"sig {way}".strip() if r.significant else "sig")
                + _td(f"{r.wins}/{r.ties}/{r.losses}" if tested else "")
                + "</tr>"
            )
    notes = [
        f"\u0394: the run's macro minus the baseline {c.baseline}'s, paired by query; "
        "\u25b2 better, \u25bc worse than the baseline, by the measure's direction (where "
        "lower is better, a negative \u0394 is better); "
        f"{confidence}: a paired bootstrap of the differences, {c.settings['n_bootstrap']:,} "
        f"resamples. p: {describe_test(c)}; \u2020: p adj. \u2264 {c.settings['alpha']:g}, a "
        "significant difference, better or worse as it says. "
        "W/T/L: queries won, tied and lost. d_z: the effect size, mean \u0394 over its "
        "standard deviation across queries"
        + (
            f"; power: the paired t-test's power (alpha {c.settings['alpha']:g}) to detect "
            "the observed \u0394; detectable: the smallest difference these queries detect "
            "with power 0.8 (prfeval power)."
            if sizes is not None
            else "."
        ),
        *disagreement_lines(c),
        *c.queries.describe(),
    ]
    return (
        '<section id="comparison"><h2>Comparison with the baseline</h2>'
        '<div class="scroll"><table class="comparison"><thead><tr>'
        '<th class="text">measure</th><th class="text">run</th><th>macro</th><th>micro</th>'
        f"<th>\u0394 macro</th><th>{confidence}</th><th>d_z</th>"
        + ("<th>power</th><th>detectable \u0394</th>" if sizes is not None else "")
        + "<th>p</th><th>p adj.</th><th>sig.</th>"
        "<th>W/T/L</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
        + "".join(f'<p class="legend">{_e(n)}</p>' for n in notes)
        + "</section>"
    )


def _power_cells(
    sizes: dict[tuple[str, str], MeasurePower] | None, measure: str, run: str
) -> str:
    if sizes is None:
        return ""
    sized = sizes.get((measure, run))
    if sized is None:
        return _td("") + _td("")
    return _td(_num(sized.power, 3), sized.power) + _td(
        _num(sized.min_detectable_diff), sized.min_detectable_diff
    )


def _diff_column(s: Study) -> int | None:
    """The measure whose per-query differences the table shows: the first with a
    direction, when there is a run besides the baseline."""
    c = s.comparison
    testable = [k for k, m in enumerate(c.measures) if m.definition.direction != 0]
    return testable[0] if testable and len(c.runs) > 1 else None


def _table_spec(s: Study) -> dict[str, Any]:
    """What the page's script needs to write the per-query rows as :func:`_per_query` does."""
    c = s.comparison
    diff_k = _diff_column(s)
    return {
        "totals": [m.definition.is_total for m in c.measures],
        "diff": diff_k,
        "base": c.runs.index(c.baseline),
        "others": [i for i, n in enumerate(c.runs) if n != c.baseline],
        "sign": c.measures[diff_k].definition.direction if diff_k is not None else 0,
    }


def _per_query(s: Study, rows_in_html: bool = True) -> str:
    c = s.comparison
    labels = c.labels
    others = [i for i, n in enumerate(c.runs) if n != c.baseline]
    base = c.runs.index(c.baseline)
    diff_k = _diff_column(s)
    # Each run's columns name it with its colour, and carry its position (data-run) for the
    # page's run switches.
    headers = ['<th class="text">query</th>']
    for label in labels:
        headers += [
            f'<th data-run="{i}">{_e(label)}<br>{_run_name(i, run)}</th>'
            for i, run in enumerate(c.runs)
        ]
    if diff_k is not None:
        headers += [
            f'<th data-run="{i}">\u0394 {_e(labels[diff_k])}<br>{_run_name(i, c.runs[i])} '
            f"\u2212 {_e(c.baseline)}</th>"
            for i in others
        ]
    sign = c.measures[diff_k].definition.direction if diff_k is not None else 0
    rows = []
    for j, q in enumerate(c.query_ids if rows_in_html else ()):
        cells = [f'<td class="text">{_e(q)}</td>']
        for k, m in enumerate(c.measures):
            total = m.definition.is_total
            for i in range(len(c.runs)):
                v = float(c.values[i, k, j])
                cells.append(_td(_num(v, 0 if total else 4), v))
        if diff_k is not None:
            for i in others:
                d = float(c.values[i, diff_k, j] - c.values[base, diff_k, j])
                way = _direction(sign, d)
                cells.append(_td(fmt_signed(d) + _arrow(way), d, f"delta {way}".strip()))
        rows.append(f'<tr data-query="{_e(q)}">' + "".join(cells) + "</tr>")
    largest = ""
    if diff_k is not None:
        column = 1 + len(labels) * len(c.runs)  # the first difference column
        largest = (
            f'<button id="largest-differences" data-column="{column}" aria-pressed="false">'
            f"Largest differences first (\u0394 {_e(labels[diff_k])})</button>"
        )
    switches = ""
    if len(c.runs) > 1:
        # Shown by the script, which hides a run's columns when its box is cleared: three runs
        # of nine measures are 27 columns, more than a screen is wide.
        switches = (
            '<fieldset id="run-columns" hidden><legend>Columns of</legend>'
            + "".join(
                f'<label><input type="checkbox" value="{i}" checked> {_run_name(i, run)}</label>'
                for i, run in enumerate(c.runs)
            )
            + "</fieldset>"
        )
    n = len(c.query_ids)
    return (
        '<section id="queries"><h2>Per query</h2>'
        f'<p class="muted">{n} queries, one row each. Click a column header to '
        "sort by it; click a query to see its ranking in each run, with its judgments, the "
        "relevant documents it missed and the ties a cutoff cuts through. Filter by a part of "
        "the query id, or by whole ids (exact ids); a comma between ids shows each of them.</p>"
        '<div class="controls"><input id="query-filter" type="search" '
        'placeholder="Filter by query id, e.g. 13 or 13, 21" aria-label="Filter by query id" '
        'aria-describedby="query-count">'
        '<label class="check"><input id="query-exact" type="checkbox"> exact ids</label>'
        + largest
        + f'<span id="query-count" class="muted" aria-live="polite">{n} of {n} shown</span>'
        + "</div>"
        + switches
        + '<div id="drilldown" hidden></div>'
        + '<noscript><p class="note">The drill-down needs scripts'
        + ("" if rows_in_html else ", and so do the rows of this many queries")
        + "; their data is in the page, compressed.</p></noscript>"
        + '<div class="scroll tall"><table id="per-query" class="sortable"><thead><tr>'
        + "".join(headers)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div></section>"
    )


# --------------------------------------------------------------------------------------------
# Classification


def render_classification(
    result: ClassificationResult | None,
    sweep: ThresholdSweep | None,
    provenance: dict[str, Any],
    *,
    figures: bool = True,
) -> str:
    """The HTML page of a classifier's results (labels and/or a threshold sweep)."""
    title = f"prfeval report: classifier {provenance.get('file', '')}".strip()
    header = (
        f"<header><h1>{_e(title)}</h1>"
        + _provenance(
            [
                ("file", provenance.get("file")),
                ("columns", provenance.get("columns")),
                ("made", f"{provenance.get('created')} by prfeval {provenance.get('prfeval')}"),
                ("items", None if result is None else result.n_items),
                ("F weight", f"beta = {provenance.get('beta', 1.0):g}"),
            ]
        )
        + "</header>"
    )
    sections = []
    if result is not None:
        sections += [_confusion(result), _classes(result)]
    if sweep is not None:
        sections.append(_sweep(sweep, figures))
    return _page(title, header, sections)


def _confusion(r: ClassificationResult) -> str:
    labels = [str(x) for x in r.labels]
    if r.multilabel:
        head = "<tr><th class='text'>label</th><th>TP</th><th>FP</th><th>FN</th><th>TN</th></tr>"
        body = "".join(
            f'<tr><td class="text">{_e(label)}</td>'
            + "".join(_td(str(int(v)), float(v)) for v in (m[1, 1], m[0, 1], m[1, 0], m[0, 0]))
            + "</tr>"
            for label, m in zip(labels, r.confusion_matrix, strict=True)
        )
        title = "Per-label counts"
    else:
        head = (
            "<tr><th class='text'>true \\ predicted</th>"
            + "".join(f"<th>{_e(x)}</th>" for x in labels)
            + "</tr>"
        )
        body = "".join(
            f'<tr><td class="text">{_e(label)}</td>'
            + "".join(_td(str(int(v)), float(v)) for v in row)
            + "</tr>"
            for label, row in zip(labels, r.confusion_matrix, strict=True)
        )
        title = "Confusion matrix (rows: true class, columns: predicted)"
    return (
        f'<section id="confusion"><h2>{title}</h2><div class="scroll"><table>'
        f"<thead>{head}</thead><tbody>{body}</tbody></table></div></section>"
    )


def _classes(r: ClassificationResult) -> str:
    f = f"F{r.beta:g}"
    shown = [("precision", "precision"), ("recall", "recall"), ("f", f),
             ("specificity", "specificity")]
    head = (
        "<tr><th class='text'>class or average</th><th>support</th>"
        + "".join(f"<th>{_e(name)}</th>" for _, name in shown)
        + "".join(f"<th>no-skill {_e(name)}</th>" for _, name in shown[:3])
        + "</tr>"
    )
    rows = []
    for label, values in r.per_class.items():
        base = r.no_skill.per_class[label]
        rows.append(
            f'<tr><td class="text">{_e(label)}</td>'
            + _td(str(values["support"]), float(values["support"]))
            + "".join(_td(_num(values[k]), values[k]) for k, _ in shown)
            + "".join(_td(_num(base[k]), base[k]) for k, _ in shown[:3])
            + "</tr>"
        )
    titles = {
        "micro": "micro average: of the pooled counts",
        "macro": f"macro average: the mean over classes, so the mean {f}",
        "weighted": "weighted average: by support",
        "samples": "samples average",
        "f_of_means": f"{f} of mean P, R",
    }
    for name, values, base in r.averages():
        rows.append(
            f'<tr class="group-start"><td class="text">{_e(titles[name])}</td><td></td>'
            + "".join(_td(_num(values[k]) if k in values else "", values.get(k)) for k, _ in shown)
            + "".join(_td(_num(base[k]) if k in base else "", base.get(k)) for k, _ in shown[:3])
            + "</tr>"
        )
    what = "exact-match accuracy" if r.multilabel else "accuracy"
    return (
        '<section id="classes"><h2>Per class, and the averages</h2>'
        f'<div class="scroll"><table class="sortable"><thead>{head}</thead><tbody>'
        + "".join(rows)
        + "</tbody></table></div>"
        f'<p class="legend">{_e(what)}: {_num(r.accuracy)} (no-skill '
        f"{_num(r.no_skill.accuracy)}); balanced accuracy (scikit-learn's: the mean recall over "
        f"classes): {_num(r.balanced_accuracy)}. No-skill: a classifier independent of the "
        "truth that predicts each class as often as this one does (precision = prevalence, "
        "recall = the share predicted).</p></section>"
    )


def _sweep(s: ThresholdSweep, figures: bool) -> str:
    f = f"F{s.beta:g}"
    best = s.best
    figure = ""
    if figures:
        from prfeval._plots.curves import sweep_figure
        from prfeval._plots.figures import svg_text

        figure = figure_html(
            svg_text(sweep_figure(s), salt="sweep"),
            f"Precision against recall as the threshold falls (raw and interpolated, with the "
            f"no-skill precision at the prevalence), and precision, recall and {f} against the "
            "threshold; the best threshold is marked.",
        )
    n = len(s.thresholds)
    shown = range(n) if n <= 40 else sorted({*range(0, n, max(1, n // 30)), s.best_index, n - 1})
    rows = "".join(
        "<tr>"
        + _td(_num(float(s.thresholds[i])), float(s.thresholds[i]))
        + _td(str(int(s.counts.tp[i])), float(s.counts.tp[i]))
        + _td(str(int(s.counts.fp[i])), float(s.counts.fp[i]))
        + _td(_num(float(s.precision[i])), float(s.precision[i]))
        + _td(_num(float(s.recall[i])), float(s.recall[i]))
        + _td(_num(float(s.f[i])), float(s.f[i]), "best" if i == s.best_index else "")
        + "</tr>"
        for i in shown
    )
    return (
        f'<section id="sweep"><h2>Threshold sweep, positive class {_e(s.pos_label)}</h2>'
        f'<p>Best {f}: {_num(best["f"])} at threshold {_num(best["threshold"])}. '
        f"{n} distinct thresholds" + ("" if n <= 40 else f", {len(list(shown))} shown") + ".</p>"
        + figure
        + '<div class="scroll"><table class="sortable"><thead><tr><th>threshold</th><th>TP</th>'
        f"<th>FP</th><th>precision</th><th>recall</th><th>{f}</th></tr></thead><tbody>"
        + rows
        + "</tbody></table></div></section>"
    )

