"""Reports of a :class:`~prfeval._comparison.sizing.PowerAnalysis`: table, json, csv."""

from __future__ import annotations

import io
import json
import math

from prfeval._comparison.sizing import PowerAnalysis
from prfeval._core.display import plural
from prfeval._report._csv import csv_writer
from prfeval._report._text import fmt_signed, fmt_value, render_table, wrap_lines

__all__ = ["FORMATS", "format_power"]

FORMATS = ("table", "json", "csv")


def _number(value: float, digits: int = 4) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def format_table(result: PowerAnalysis) -> str:
    """One row per measure, then what the columns mean."""
    s = result.settings
    a, b = result.runs
    headers = ["measure", "n", "mean Δ", "sd Δ", "d_z", "power", "detectable Δ"]
    if s["delta"] is not None:
        headers.append(f"queries for Δ={s['delta']:g}")
    rows = []
    for r in result.rows:
        row = [
            r.measure,
            str(r.n),
            fmt_signed(r.mean_diff),
            _number(r.sd_diff),
            "n/a" if math.isnan(r.effect_size) else f"{r.effect_size:+.2f}",
            _number(r.power, 3),
            fmt_value(r.min_detectable_diff) if not math.isnan(r.min_detectable_diff) else "n/a",
        ]
        if s["delta"] is not None:
            row.append("n/a" if r.queries_needed is None else f"{r.queries_needed:,}")
        rows.append(row)
    notes = [
        f"Δ: {b} − {a} per query, over {plural(len(result.query_ids), 'query', 'queries')}; "
        f"sd with n − 1; d_z = mean Δ / sd Δ.",
        f"power: the two-sided paired t-test's power (alpha {s['alpha']:g}, exact noncentral "
        f"t) to detect the observed mean Δ; detectable Δ: the smallest difference detected "
        f"with power {s['power']:g}"
        + (f"; queries for Δ: the fewest that detect {s['delta']:g} with that power."
           if s["delta"] is not None else "."),
    ]
    return render_table(None, headers, rows, wrap_lines(notes), right_align_from=1)


def format_csv(result: PowerAnalysis) -> str:
    """One line per measure; undefined cells empty."""
    buffer = io.StringIO()
    writer = csv_writer(buffer)
    records = result.to_list()
    columns = list(records[0]) if records else []
    writer.writerow(columns)
    for record in records:
        writer.writerow(
            ["" if record[k] is None else repr(record[k]) if isinstance(record[k], float)
             else record[k] for k in columns]
        )
    return buffer.getvalue()


def format_power(result: PowerAnalysis, fmt: str = "table") -> str:
    """``result`` in one of :data:`FORMATS`."""
    if fmt == "table":
        return format_table(result)
    if fmt == "json":
        return json.dumps(result.to_list(), indent=2)
    if fmt == "csv":
        return format_csv(result)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
