"""Fleet figures: one figure across nodes as p5 and median, never the best node."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..evidence.perftest import bw_avg_each_way_gbit_s
from .matching import _is_ib_write_bw, _nccl_collective, fio_target, nodes_spanned
from .plan import PocEvidence


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    if len(ordered) == 1:
        return float(ordered[0])
    pos = (len(ordered) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (pos - low))


def fleet_summary(per_node: Mapping[str, float]) -> dict[str, Any]:
    """A figure across nodes: count, p5 and median (never the best node; the worst is shown
    to make a golden node visible)."""
    values = [float(v) for v in per_node.values()]
    if not values:
        return {"nodes": 0, "p5": None, "median": None, "worst": None}
    return {
        "nodes": len(values),
        "p5": percentile(values, 5),
        "median": percentile(values, 50),
        "worst": min(values),
    }


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def fleet_figures(
    evidence: Iterable[PocEvidence], nodes: Sequence[str] = ()
) -> dict[str, dict[str, Any]]:
    """Per-node figures summarised across nodes: one-node all_reduce peak bus bandwidth
    (GB/s), ib_write_bw average one way (Gbit/s), local fio read (MB/s). A node with several files
    keeps its best file (repeats of one run), the fleet keeps p5 and median. With ``nodes``
    (the sample) only those nodes count."""
    only = set(nodes)
    per: dict[str, dict[str, float]] = {"nccl_busbw_gbyte_s": {}, "ib_write_bw_gbit_s": {}}
    per["fio_read_bw_mbyte_s"] = {}
    for e in evidence:
        if only and e.node_name not in only:
            continue
        if e.kind == "nccl_tests" and _nccl_collective(e) == "all_reduce":
            if nodes_spanned(e) == 1:
                key, value = "nccl_busbw_gbyte_s", _number(e.metrics.get("peak_busbw_gbyte_s"))
            else:
                continue
        elif _is_ib_write_bw(e):
            # One direction, as a port's rate: a bidirectional (-b) run reports both summed.
            key, value = "ib_write_bw_gbit_s", bw_avg_each_way_gbit_s(e.metrics)
        elif e.kind == "fio" and fio_target(e) == "local":
            key, value = "fio_read_bw_mbyte_s", _number(e.metrics.get("read_bw_mbyte_s"))
        else:
            continue
        if value is None:
            continue
        node = e.node_name
        per[key][node] = max(value, per[key].get(node, value))
    return {key: fleet_summary(values) for key, values in per.items() if values}
