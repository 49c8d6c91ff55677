"""The report page's drill-down data read back in Python, from the format that
prfeval/_report/drilldown.py documents (written here from that description, not with its code):
base 85 of zlib of typed-array columns, integers as byte planes, ids front-coded, scores as
falls with escapes, flags from the grades and the level."""

from __future__ import annotations

import contextlib
import json
import math
import re
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np


def page_meta(page: str) -> dict[str, Any]:
    """The JSON element of the page."""
    match = re.search(r'<script type="application/json" id="drilldown-data">(.*?)</script>',
                      page, re.S)
    assert match is not None
    return json.loads(match.group(1))


# Printable ASCII but " & ' / < = > \ and the backquote, in order.
DIGITS = [chr(c) for c in range(33, 127) if chr(c) not in "\"&'/<=>\\`"]


def _base85(text: str, n: int) -> bytes:
    value = {d: i for i, d in enumerate(DIGITS)}
    out = bytearray()
    for i in range(0, len(text), 5):
        word = 0
        for ch in text[i : i + 5]:
            word = word * 85 + value[ch]
        out += word.to_bytes(4, "big")
    return bytes(out[:n])


def _columns(meta: dict[str, Any]) -> dict[str, np.ndarray]:
    assert len(DIGITS) == 85
    raw = zlib.decompress(_base85(meta["blob"], meta["blob_bytes"]))
    out = {}
    for name, (dtype, offset, n) in meta["columns"].items():
        kind = np.dtype(dtype).newbyteorder("<")
        size = kind.itemsize
        chunk = np.frombuffer(raw, dtype=np.uint8, count=n * size, offset=offset)
        if kind.kind in "iu" and size > 1:
            chunk = chunk.reshape(size, n).T.copy()  # byte planes back to values
        out[name] = chunk.reshape(-1).view(kind) if n else np.zeros(0, kind)
    return out


def _ids(c: dict[str, np.ndarray]) -> list[str]:
    ids, previous, at = [], b"", 0
    suffix = c["vocab_suffix"].tobytes()
    for keep, own in zip(c["vocab_prefix"].tolist(), c["vocab_suffix_len"].tolist(),
                         strict=True):
        previous = previous[:keep] + suffix[at : at + own]
        at += own
        ids.append(previous.decode("utf-8"))
    return ids


def drilldown(page: str) -> dict[str, Any]:
    """``{"runs", "colors", "queries": {query: {run: entry}}}``, each entry as the page
    draws it: docs, scores, grades (None unjudged), flags, missed, values, best, ties."""
    meta = page_meta(page)
    c = _columns(meta)
    ids = _ids(c)
    runs, queries = meta["runs"], meta["queries"]
    n_q, n_r, labels = len(queries), len(runs), meta["labels"]
    ties = json.loads(c["ties"].tobytes().decode("utf-8"))
    # Each ranking's first escaped score.
    place_offsets = c["place_offsets"].astype(np.int64)
    if meta["scale"] is not None:
        escaped = np.concatenate(([0], np.cumsum(c["scores"] == 255)))
        escape_starts = escaped[place_offsets]
    union = []
    for j in range(n_q):
        a, b = c["union_offsets"][j], c["union_offsets"][j + 1]
        union.append(np.cumsum(c["union_delta"][a:b].astype(np.int64)).tolist())
    out: dict[str, Any] = {}
    for j, q in enumerate(queries):
        out[q] = {}
        for r, run in enumerate(runs):
            at = r * n_q + j
            if not c["present"][at]:
                continue
            lo, hi = c["place_offsets"][at], c["place_offsets"][at + 1]
            docs = [ids[union[j][u]] for u in c["place_union"][lo:hi].tolist()]
            if not c["has_scores"][r]:
                scores = [None] * len(docs)
            elif meta["scale"] is None:
                scores = c["scores"][lo:hi].tolist()
            else:
                units, unit, e = [], 0, int(escape_starts[at])
                for fall in c["scores"][lo:hi].tolist():
                    if fall == 255:
                        unit, e = int(c["score_escapes"][e]), e + 1
                    else:
                        unit -= fall
                    units.append(unit)
                scores = (np.array(units, dtype=np.float64) / 10.0 ** meta["scale"]).tolist()
            grades = [None if g == meta["unjudged"] else g for g in c["grades"][lo:hi].tolist()]
            if "flags" in c:
                flags = "".join("r" if f & 1 else "d" if f & 2 else "." for f in c["flags"][lo:hi])
            else:
                assert meta["level"] is not None
                seen: set[int] = set()
                letters = []
                for u, g in zip(c["place_union"][lo:hi].tolist(), grades, strict=True):
                    letters.append("d" if u in seen else
                                   "r" if g is not None and g >= meta["level"] else ".")
                    seen.add(u)
                flags = "".join(letters)
            m = j * n_r + r
            a, b = c["missed_offsets"][m], c["missed_offsets"][m + 1]
            codes = np.cumsum(c["missed_delta"][a:b].astype(np.int64)).tolist()
            missed = [[ids[k], g] for k, g in zip(codes, c["missed_grades"][a:b].tolist(),
                                                  strict=True)]
            values = {}
            for k, label in enumerate(labels):
                v = float(c["values"][(r * len(labels) + k) * n_q + j])
                values[label] = None if math.isnan(v) else v
            k_best, tp = int(c["best_k"][at]), int(c["best_tp"][at])
            out[q][run] = {
                "n_retrieved": int(c["n_retrieved"][at]),
                "n_relevant": int(c["n_relevant"][at]),
                "docs": docs,
                "scores": scores,
                "grades": grades,
                "flags": flags,
                "missed": missed,
                "values": values,
                "best": None if k_best == 0 else (k_best, tp),
                "ties": ties.get(str(r), {}).get(str(j), []),
            }
    return {"runs": runs, "colors": meta["colors"], "queries": out}


@contextlib.contextmanager
def opened_report(browser: Any, path: Any) -> Iterator[tuple[Any, list[str]]]:
    """The page at ``path`` opened in ``browser`` once its script has written the per-query
    rows: ``(page, errors)``, the errors the page's script raised; the page closes after."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(path.resolve().as_uri())
        page.wait_for_selector("#per-query[data-filled=true]")
        yield page, errors
    finally:
        page.close()


def shown_drilldown(page: Any, query: str, n_runs: int) -> list[list[list[str]]]:
    """Click ``query``'s row and read its drill-down once drawn: per run, the text of each
    cell of each row of its ranking table."""
    page.locator(f'#per-query tbody tr[data-query="{query}"]').click()
    page.wait_for_selector(f'#drilldown[data-shown="{query}"][aria-busy=false]')
    panel = page.locator("#drilldown")
    return [panel.locator("table").nth(i).evaluate("""(t) => Array.from(t.tBodies[0].rows,
      (tr) => Array.from(tr.cells, (td) => td.textContent))""") for i in range(n_runs)]
