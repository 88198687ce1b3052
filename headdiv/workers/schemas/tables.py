"""Results as CSV tables, the same text wherever a user takes one away (the dashboard's downloads, the
command line's `--csv`). Pure functions of a result; no torch, no Dash."""

from __future__ import annotations

import csv
import io
from typing import Any

from headdiv.workers.schemas.results.reports import ModelHeadsReport


def records_csv(records: list[dict[str, Any]]) -> str:
    """Records (dicts of scalars) as CSV with the union of their keys as header."""
    keys: list[str] = []
    for r in records:
        for k, v in r.items():
            if k not in keys and not isinstance(v, (dict, list)):
                keys.append(k)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=keys, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(records)
    return buf.getvalue()


def head_clusters_csv(result: ModelHeadsReport) -> str:
    """A model's heads clustered and ranked (`clusters` of each layer of a model HDI result), one row per head:
    its key group, flat cluster, place in the dendrogram's order, diversity contribution and redundancy rank
    (0 = the head whose removal costs the layer the least diversity). Heads and key groups are numbered from
    1, as every chart and sentence of the page numbers them; layers keep the model's own numbers."""
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
