"""Test collections: readers for the SMART format and the bundled Cranfield 1400 collection.

Nothing here imports more than the standard library; ranking the collection lives in
:mod:`prfeval._demo.bm25` (the optional ``demo`` extra).
"""

from __future__ import annotations

from prfeval._demo.datasets.cranfield import (
    Collection,
    load_cranfield,
    parse_cranfield_qrels,
    write_qrels,
)
from prfeval._demo.datasets.smart import (
    Document,
    Query,
    SmartRecord,
    documents_from_records,
    parse_smart,
    queries_from_records,
    read_smart,
)

__all__ = [
    "Collection",
    "Document",
    "Query",
    "SmartRecord",
    "documents_from_records",
    "load_cranfield",
    "parse_cranfield_qrels",
    "parse_smart",
    "queries_from_records",
    "read_smart",
    "write_qrels",
]
