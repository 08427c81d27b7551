"""NVLinks down in an ``nvidia-smi topo -m`` matrix (checklist item 2): on a full mesh each GPU's
NV# cells against its model's link count, on a grouped board (bridged pairs, a hybrid cube
mesh) each GPU's NVLinks against those of the other GPUs of the board's groups of its size."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

_GPU = re.compile(r"^GPU(\d+)$")
_BONDED = re.compile(r"^NV(\d{1,4})$")
# A reason names a few GPUs, enough to find them in the matrix; the rest are counted.
_SHOWN_GPUS = 3


@dataclass(frozen=True)
class LinksDown:
    """GPUs of a full NVLink mesh that show fewer NVLinks than their model has.

    ``switched`` is True on an NVSwitch baseboard (HGX/DGX), where every pair's NV# is the
    NVLinks each GPU has into the switches; False on a board whose GPUs are wired to each
    other directly (HGX 4-GPU, a bridged pair), where a GPU's NV# cells add up to its links.
    ``links`` maps each GPU with links down to the NVLinks it shows (its largest cell on a
    switched board, the sum of its cells otherwise); ``rows`` holds the matrix row of the first
    of them that has one, restricted to the GPU columns, to quote as the evidence.
    """

    switched: bool
    expected: int
    links: Mapping[str, int]
    cells: Mapping[str, tuple[str, ...]]
    rows: Mapping[str, str]
    # Grouped boards (grouped_links_down): each GPU with links down -> the size of its NVLink
    # group and the NVLinks the other GPUs of groups of that size have (``expected`` is then
    # the largest of those counts). Empty on a full mesh.
    groups: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def expected_of(self, gpu: str) -> int:
        """The NVLinks ``gpu`` should show: its group's on a grouped board, else ``expected``."""
        return self.groups[gpu][1] if gpu in self.groups else self.expected

    def described(self, model: str, source: str) -> tuple[str, str]:
        """(en, zh) naming the GPUs, the NVLinks they show and the ``model``'s count, with the
        row of ``source`` (the file) that shows it."""
        shown = list(self.links.items())[:_SHOWN_GPUS]
        more = len(self.links) - len(shown)
        if self.groups:
            return self._described_grouped(shown, more, source)
        if self.switched:
            seen_en = [f"{gpu} reaches the other GPUs over at most NV{n}" for gpu, n in shown]
            seen_zh = [f"{gpu} 与其他 GPU 之间至多为 NV{n}" for gpu, n in shown]
            rule_en = f"every GPU pair of an NVSwitch board of {model} reads NV{self.expected}"
            rule_zh = f"{model} 的 NVSwitch 基板上每对 GPU 之间均应为 NV{self.expected}"
        else:
            seen_en = [
                f"{gpu}'s NVLinks to the other GPUs add up to {n} ({' + '.join(self.cells[gpu])})"
                for gpu, n in shown
            ]
            seen_zh = [
                f"{gpu} 与其他 GPU 之间的 NVLink 合计 {n} 条（{' + '.join(self.cells[gpu])}）"
                for gpu, n in shown
            ]
            rule_en = f"each GPU of a directly wired board of {model} has {self.expected}"
            rule_zh = f"{model} 的直连基板上每块 GPU 应有 {self.expected} 条"
        if more:
            seen_en.append(f"{more} more GPU(s) likewise")
            seen_zh.append(f"另有 {more} 块 GPU 同样如此")
        down_en = ", ".join(f"{self.expected - n} of {gpu}'s {self.expected}" for gpu, n in shown)
        down_zh = "，".join(
            f"{gpu} 的 {self.expected} 条 NVLink 中有 {self.expected - n} 条" for gpu, n in shown
        )
        en = f"{'; '.join(seen_en)}, where {rule_en}: {down_en} NVLinks are down"
        zh = f"{'；'.join(seen_zh)}，而{rule_zh}：{down_zh}未连通"
        return self._with_source_row(en, zh, source)

    def _with_source_row(self, en: str, zh: str, source: str) -> tuple[str, str]:
        """(en, zh) followed by the matrix row of ``source`` (the file) that shows the first
        GPU with NVLinks down, when the matrix has one."""
        if not self.rows:
            return en, zh
        row = next(iter(self.rows.values()))
        return f'{en} (row "{row}" in {source})', f"{zh}（{source} 中的行“{row}”）"

    def _described_grouped(
        self, shown: list[tuple[str, int]], more: int, source: str
    ) -> tuple[str, str]:
        """(en, zh) for a grouped board: each GPU's NVLinks within its group, against the
        count the other GPUs of groups of its size have."""
        seen_en, seen_zh = [], []
        rules: dict[int, int] = {}
        for gpu, n in shown:
            size, want = self.groups[gpu]
            rules.setdefault(size, want)
            cells = " + ".join(self.cells[gpu])
            seen_en.append(f"{gpu}'s NVLinks within its group of {size} add up to {n} ({cells})")
            seen_zh.append(f"{gpu} 在其 {size} 卡 NVLink 组内的 NVLink 合计 {n} 条（{cells}）")
        if more:
            seen_en.append(f"{more} more GPU(s) likewise")
            seen_zh.append(f"另有 {more} 块 GPU 同样如此")
        rule_en = " and ".join(
            f"the other GPUs in this board's NVLink groups of {size} have {want}"
            for size, want in rules.items()
        )
        rule_zh = "；".join(
            f"该机其他 {size} 卡 NVLink 组中的 GPU 均有 {want} 条" for size, want in rules.items()
        )
        down_en = ", ".join(
            f"{self.expected_of(g) - n} of {g}'s {self.expected_of(g)}" for g, n in shown
        )
        down_zh = "，".join(
            f"{g} 的 {self.expected_of(g)} 条 NVLink 中有 {self.expected_of(g) - n} 条"
            for g, n in shown
        )
        en = (
            f"{'; '.join(seen_en)}, where {rule_en}: {down_en} NVLinks are down (a link down "
            "or a bridge missing)"
        )
        zh = f"{'；'.join(seen_zh)}，而{rule_zh}：{down_zh}未连通（链路故障或缺少桥接器）"
        return self._with_source_row(en, zh, source)


def _first_row(matrix: Mapping[str, Any], gpus: Any, down: Iterable[str]) -> dict[str, str]:
    """{gpu: its matrix row as the file shows it} for the first GPU of ``down`` whose row
    the matrix holds (empty when none): the line a reader finds in the source."""
    for gpu in down:
        row = matrix.get(gpu)
        if isinstance(row, Mapping):
            return {gpu: f"{gpu} " + " ".join(str(row.get(other, "?")) for other in gpus)}
    return {}


def _index(label: str) -> int:
    match = _GPU.match(label)
    return int(match.group(1)) if match else -1


def _cell(matrix: Mapping[str, Any], a: str, b: str) -> str | None:
    for row, column in ((a, b), (b, a)):
        cells = matrix.get(row)
        code = cells.get(column) if isinstance(cells, Mapping) else None
        if isinstance(code, str) and code:
            return code
    return None


def topo_links_down(metrics: Mapping[str, Any], expected: int) -> LinksDown | None:
    """The GPUs of a full NVLink mesh showing fewer than ``expected`` NVLinks (the model's
    ``GpuSpec.nvlink_links``), or None: links all there, no matrix, or not a full mesh.

    nvidia-smi prints NV<n> for a pair joined by a bonded set of n NVLinks. Behind NVSwitches
    (HGX/DGX 8-GPU, GB200 trays) every pair reads the GPU's whole link count (NV18 on H100,
    H200, H20, B200; NV12 on A100; NV8 on H800, A800), so a GPU with links down reads fewer on
    all its pairs. Without switches (HGX 4-GPU H100: NV6 to each of three, 18 in all; a
    bridged pair) a GPU's cells add up to its link count. A board is read as switched when
    some GPU's cells add up to more links than the model has, which only switches allow.
    A pair joined otherwise than by NVLink (PCIe cards bridged in groups, a hybrid cube mesh)
    makes it no full mesh: those are judged by the topology itself, not here.
    """
    matrix = metrics.get("matrix")
    if not isinstance(matrix, Mapping) or expected <= 0:
        return None
    labels = set(matrix)
    for cells in matrix.values():
        if isinstance(cells, Mapping):
            labels.update(cells)
    gpus = sorted((g for g in labels if isinstance(g, str) and _GPU.match(g)), key=_index)
    if len(gpus) < 2:
        return None
    counts: dict[str, list[tuple[str, int]]] = {gpu: [] for gpu in gpus}
    unknown: set[str] = set()
    for a, b in combinations(gpus, 2):
        code = _cell(matrix, a, b)
        if code is None:
            unknown.update((a, b))
            continue
        bonded = _BONDED.match(code)
        if not bonded:
            return None
        counts[a].append((b, int(bonded.group(1))))
        counts[b].append((a, int(bonded.group(1))))
    switched = any(sum(n for _, n in pairs) > expected for pairs in counts.values())
    links: dict[str, int] = {}
    cells: dict[str, tuple[str, ...]] = {}
    for gpu, pairs in counts.items():
        if not pairs:
            continue
        if switched:
            seen = max(n for _, n in pairs)
        elif gpu in unknown:
            # A cut matrix hides some of a directly wired GPU's links: its sum says nothing.
            continue
        else:
            seen = sum(n for _, n in pairs)
        if seen < expected:
            links[gpu] = seen
            cells[gpu] = tuple(f"NV{n}" for _, n in pairs)
    if not links:
        return None
    return LinksDown(switched, expected, links, cells, _first_row(matrix, gpus, links))


def _components(gpus: list[str], bonds: Mapping[str, list[tuple[str, int]]]) -> list[list[str]]:
    """The NVLink groups: GPUs joined by NVLink, directly or through other GPUs."""
    groups: list[list[str]] = []
    placed: set[str] = set()
    for first in gpus:
        if first in placed or not bonds[first]:
            continue
        group, todo = [], [first]
        placed.add(first)
        while todo:
            gpu = todo.pop()
            group.append(gpu)
            for other, _ in bonds[gpu]:
                if other not in placed:
                    placed.add(other)
                    todo.append(other)
        groups.append(sorted(group, key=_index))
    return groups


def grouped_links_down(metrics: Mapping[str, Any]) -> LinksDown | None:
    """The GPUs of a grouped NVLink board with fewer NVLinks than the other GPUs of the board's
    groups of the same size, or None: all alike, no matrix, a cut matrix, or a full mesh.

    A grouped board joins its GPUs by NVLink in groups, not all to all: PCIe cards bridged in
    pairs (NV12 on A100 or H100 NVL with three bridges, NV4 on RTX A6000 or A40 with one), four
    cards under a 4-way bridge, or the DGX-1 hybrid cube mesh (V100: NV1 or NV2 to each of four
    peers). A pair's own count may differ by design (the cube mesh mixes NV1 and NV2), but
    every GPU of a board has the same NVLinks wired, so each GPU's NV# cells add up to the same
    count as the other GPUs in groups of its size (6 on the DGX-1V, 12 per A100 PCIe pair). A
    GPU that adds up to fewer has links down or a bridge missing: one of three A100 bridges
    missing reads NV8. Groups are compared by size so that a 4-way group beside a bridged pair
    is not held to the pair's count; one GPU model per node is assumed (an offering states
    one). Not judged here: GPUs without any NVLink (a card left unbridged, and a pair whose
    every bridge is missing reads like one: the topology itself is judged, not links), a lone
    pair (its two GPUs read the same cell: the model's own count is the full-mesh rule's), and
    a cut matrix (a missing cell could hide a link).
    """
    matrix = metrics.get("matrix")
    if not isinstance(matrix, Mapping):
        return None
    labels = set(matrix)
    for cells in matrix.values():
        if isinstance(cells, Mapping):
            labels.update(cells)
    gpus = sorted((g for g in labels if isinstance(g, str) and _GPU.match(g)), key=_index)
    bonds: dict[str, list[tuple[str, int]]] = {gpu: [] for gpu in gpus}
    for a, b in combinations(gpus, 2):
        code = _cell(matrix, a, b)
        if code is None:
            return None
        bonded = _BONDED.match(code)
        if bonded and int(bonded.group(1)) > 0:
            bonds[a].append((b, int(bonded.group(1))))
            bonds[b].append((a, int(bonded.group(1))))
    groups = _components(gpus, bonds)
    if all(len(bonds[gpu]) == len(gpus) - 1 for gpu in gpus):
        return None  # every pair NVLink: a full mesh, the full-mesh rule's
    total = {gpu: sum(n for _, n in bonds[gpu]) for gpu in gpus}
    wired: dict[int, int] = {}
    for group in groups:
        wired[len(group)] = max(wired.get(len(group), 0), *(total[g] for g in group))
    links: dict[str, int] = {}
    cells: dict[str, tuple[str, ...]] = {}
    by_gpu: dict[str, tuple[int, int]] = {}
    for group in groups:
        want = wired[len(group)]
        for gpu in group:
            if total[gpu] < want:
                links[gpu] = total[gpu]
                cells[gpu] = tuple(f"NV{n}" for _, n in bonds[gpu])
                by_gpu[gpu] = (len(group), want)
    if not links:
        return None
    ordered = dict(sorted(links.items(), key=lambda item: _index(item[0])))
    rows = _first_row(matrix, gpus, ordered)
    return LinksDown(False, max(want for _, want in by_gpu.values()), ordered, cells, rows, by_gpu)
