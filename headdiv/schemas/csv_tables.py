"""Results as CSV tables, the same text wherever a user takes one away (the dashboard's downloads, the
command line's `--csv`). Pure functions of a result; no torch, no Dash."""

from __future__ import annotations

import csv
import io
from typing import Any

from headdiv.schemas.results.report_results import ModelHeadsReport

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula (OWASP's CSV injection rule)."""


def safe_cell(value: Any) -> Any:
    """A text cell that a spreadsheet would run as a formula, quoted so it shows as text (`'=...`): a model's
    file name or a tensor's name comes from whoever made the file. Numbers (a negative one too) stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_text(header: list[Any], rows: list[list[Any]]) -> str:
    """The one way a table becomes CSV here: every cell through `safe_cell`."""
    buf = io.StringIO()
    # lines end "\r\n" (RFC 4180): a cell holding a line break of either kind is then quoted, one cell still
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow([safe_cell(h) for h in header])
    w.writerows([[safe_cell(v) for v in row] for row in rows])
    return buf.getvalue()


def records_csv(records: list[dict[str, Any]]) -> str:
    """Records (dicts of scalars) as CSV with the union of their keys as header."""
    keys: list[str] = []
    for r in records:
        for k, v in r.items():
            if k not in keys and not isinstance(v, (dict, list)):
                keys.append(k)
    return csv_text(keys, [[r.get(k, "") for k in keys] for r in records])


def head_clusters_csv(result: ModelHeadsReport) -> str:
    """A model's heads clustered and ranked (`clusters` of each layer of a model HDI result), one row per head:
    its key group, flat cluster, place in the dendrogram's order, diversity contribution and redundancy rank
    (0 = the head whose removal costs the layer the least diversity). Heads and key groups are numbered from
    1, as every chart and sentence of the page numbers them; layers keep the model's own numbers, and a model
    with several stacks (encoder, decoder, cross-attention) says each layer's."""
    records: list[dict[str, Any]] = []
    for layer in result.layers:
        for which, c in (("query", layer.clusters.query), ("key", layer.clusters.key)):
            if c is None:
                continue
            place = {head: i for i, head in enumerate(c.order)}
            rank = {head: i for i, head in enumerate(c.redundant_first)}
            for head, contribution in enumerate(c.contribution):
                records.append(
                    {
                        "layer": layer.layer,
                        **({"stack": layer.stack} if layer.stack else {}),
                        "heads": which,
                        "head": head + 1,
                        "key_group": c.groups[head] + 1,
                        "cluster": c.labels[head],
                        "order": place[head],
                        "contribution": contribution,
                        "redundancy_rank": rank[head],
                    }
                )
    return records_csv(records)
