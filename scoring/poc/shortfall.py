"""A failed, unproven or missing run as structure (PocShortfall), and reading old rows back."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .notes import (
    NOTE_DCGM_FAIL,
    NOTE_DCGM_INCOMPLETE,
    NOTE_DCGM_SKIP,
    NOTE_FIO_ERRORS,
    NOTE_FOREIGN_GPU,
    NOTE_NCCL_WRONG,
    NOTES_EN,
    note_en,
)
from .plan import (
    DCGM_DIAG,
    FIO_LOCAL_RAND,
    FIO_LOCAL_SEQ,
    FIO_SHARED_RAND,
    FIO_SHARED_SEQ,
    IB_WRITE_BW,
    INVENTORY,
    NCCL_MULTI_ALL_REDUCE,
    NCCL_MULTI_ALLTOALL,
    NCCL_ONE_NODE,
    NVIDIA_SMI_Q,
    RUN_LABELS,
)

# -- what failed or missing runs do to the scores and the must-haves --------------------------
#
# A required run that failed (its tool reported the failure) contradicts the claim it would have
# verified; one still missing at the deadline leaves that claim unverifiable, which the rubric
# scores below a plain claim (never neutral). Before the deadline a missing run is pending and
# changes nothing: the POC is still running.

# The checklist item each run's evidence speaks to.
RUN_ITEMS = {
    NCCL_ONE_NODE: "nvlink_topology",
    NCCL_MULTI_ALL_REDUCE: "fabric",
    NCCL_MULTI_ALLTOALL: "fabric",
    IB_WRITE_BW: "fabric",
    DCGM_DIAG: "gpu_match",
    FIO_LOCAL_SEQ: "local_nvme",
    FIO_LOCAL_RAND: "local_nvme",
    FIO_SHARED_SEQ: "distributed_storage",
    FIO_SHARED_RAND: "distributed_storage",
    NVIDIA_SMI_Q: "gpu_match",
    INVENTORY: "gpu_match",
}
RUN_LABELS_ZH = {
    NCCL_ONE_NODE: "单节点 all_reduce（nccl-tests）",
    NCCL_MULTI_ALL_REDUCE: "多节点 all_reduce（nccl-tests）",
    NCCL_MULTI_ALLTOALL: "多节点 alltoall（nccl-tests）",
    IB_WRITE_BW: "两节点间 ib_write_bw",
    DCGM_DIAG: "dcgmi diag -r 3",
    FIO_LOCAL_SEQ: "fio 顺序读写，本地 NVMe",
    FIO_LOCAL_RAND: "fio 随机读写，本地 NVMe",
    FIO_SHARED_SEQ: "fio 顺序读写，共享文件系统",
    FIO_SHARED_RAND: "fio 随机读写，共享文件系统",
    NVIDIA_SMI_Q: "nvidia-smi -q",
    INVENTORY: "清单（nvidia-smi -L）",
}
MISSING = "missing"
RUN_FAILED = "failed"
UNPROVEN = "unproven"  # it ran, but checked nothing (a diag with every hardware test skipped)
REASONS = (MISSING, RUN_FAILED, UNPROVEN)
ITEM_CONTRADICTED = "contradicted"
ITEM_UNVERIFIABLE = "unverifiable"
# Runs a multi-node plan makes mandatory: without them nothing shows the fabric carries the
# workload across nodes. Only multi-node plans list them.
FABRIC_PROOF_RUNS = frozenset({NCCL_MULTI_ALL_REDUCE, NCCL_MULTI_ALLTOALL})


class PocInputError(ValueError):
    """A stored coverage or shortfall that cannot be read as given."""


@dataclass(frozen=True)
class PocShortfall:
    """One required run that failed (``reason`` "failed": its evidence reported a failure),
    ran without checking anything ("unproven") or was still missing at the deadline
    ("missing"). Only "failed" contradicts; the other two leave the claim unverifiable.

    The structure pages word in their reader's language (:meth:`as_dict`): the run's kind and
    key (node or node pair), the reason, the failure note as a code with its parts
    (``note_code``, ``note_args``; ``note`` holds its English words) and the evidence that
    failed (node, file, upload; ``evidence_ref`` is the same as one English line)."""

    run_key: str
    kind: str
    reason: str
    note: str = ""
    evidence_ref: str = ""
    note_code: str = ""
    note_args: tuple[tuple[str, str], ...] = ()
    evidence_node: str = ""
    evidence_file: str = ""
    evidence_upload: str = ""

    def __post_init__(self) -> None:
        if self.kind not in RUN_LABELS:
            raise PocInputError(f"unknown POC run kind {self.kind!r}")
        if self.reason not in REASONS:
            raise PocInputError(f"a shortfall is one of {', '.join(REASONS)}, not {self.reason!r}")
        if self.note_code and self.note_code not in NOTES_EN:
            raise PocInputError(f"unknown POC note code {self.note_code!r}")
        args = tuple((str(k), str(v)) for k, v in dict(self.note_args).items())
        object.__setattr__(self, "note_args", args)
        if self.note and not self.note_code:
            # A note given as words only (a coverage stored before the codes): its code.
            parts = note_parts(self.note)
            if parts is not None:
                object.__setattr__(self, "note_code", parts[0])
                object.__setattr__(self, "note_args", tuple(parts[1].items()))
        elif self.note_code and not self.note:
            try:
                object.__setattr__(self, "note", note_en(self.note_code, args))
            except KeyError as missing:
                raise PocInputError(f"POC note {self.note_code!r} lacks {missing}") from None

    @property
    def item_key(self) -> str:
        """The checklist item the shortfall speaks to, "" for none: a failed health diag
        says nothing against the claimed GPU model, count or memory (the must-have
        ``poc_health_failed`` and the measured failed-test count carry it)."""
        if self.kind == DCGM_DIAG and self.reason == RUN_FAILED:
            return ""
        return RUN_ITEMS[self.kind]

    @property
    def item_status(self) -> str:
        """What the shortfall makes of the claim the run would have verified."""
        return ITEM_CONTRADICTED if self.reason == RUN_FAILED else ITEM_UNVERIFIABLE

    @property
    def where(self) -> str:
        """The node ("gpu03") or pair ("gpu03~gpu07") the run was required on, or ""."""
        return self.run_key.split("@", 1)[1] if "@" in self.run_key else ""

    def as_dict(self) -> dict[str, Any]:
        """The shortfall as stored with answers, scores and knockouts (JSON-safe): what a page
        words in its reader's language (:meth:`from_dict` reads it back)."""
        where = self.where
        peers = where.split("~") if "~" in where else []
        upload: int | str | None = self.evidence_upload or None
        if self.evidence_upload.isdigit():
            upload = int(self.evidence_upload)
        evidence = None
        if self.evidence_node or self.evidence_file or upload is not None:
            evidence = {"node": self.evidence_node, "file": self.evidence_file, "upload_id": upload}
        return {
            "run_key": self.run_key,
            "kind": self.kind,
            "node": "" if peers else where,
            "peers": peers,
            "reason": self.reason,
            "note": self.note,
            "note_code": self.note_code,
            "note_args": dict(self.note_args),
            "evidence": evidence,
            "evidence_ref": self.evidence_ref,
        }

    @classmethod
    def from_dict(cls, data: Any) -> PocShortfall:
        """A shortfall from :meth:`as_dict`; PocInputError when it cannot be read."""
        if not isinstance(data, Mapping):
            raise PocInputError(f"a stored shortfall is a mapping, not {type(data).__name__}")
        texts = {}
        for name in ("run_key", "kind", "reason", "note", "note_code", "evidence_ref"):
            value = data.get(name) or ""
            if not isinstance(value, str):
                raise PocInputError(f"a stored shortfall's {name} is text, not {value!r}")
            texts[name] = value
        args = data.get("note_args") or {}
        evidence = data.get("evidence") or {}
        if not isinstance(args, Mapping) or not isinstance(evidence, Mapping):
            raise PocInputError("a stored shortfall's note_args and evidence are mappings")
        upload = evidence.get("upload_id")
        return cls(
            note_args=tuple(args.items()),
            evidence_node=str(evidence.get("node") or ""),
            evidence_file=str(evidence.get("file") or ""),
            evidence_upload="" if upload is None else str(upload),
            **texts,
        )

    @property
    def explanation_en(self) -> str:
        where = self.where.replace("~", " and ")
        run = f"POC run {RUN_LABELS[self.kind]}" + (f" on {where}" if where else "")
        if self.reason == MISSING:
            return f"{run}: missing at the deadline"
        if self.reason == UNPROVEN:
            return f"{run}: checked nothing ({self.note or 'every test was skipped'})"
        return f"{run}: failed ({self.note or 'the tool reported a failure'})"

    @property
    def explanation_zh(self) -> str:
        where = self.where.replace("~", " 与 ")
        run = f"POC 测试 {RUN_LABELS_ZH[self.kind]}" + (f"（{where}）" if where else "")
        note = self.note
        if self.note_code:
            note = _NOTES_ZH[self.note_code].format(**dict(self.note_args))
        if self.reason == MISSING:
            return f"{run}：截止时仍未提交"
        if self.reason == UNPROVEN:
            return f"{run}：未实际检测任何项目（{note or '所有测试均被跳过'}）"
        return f"{run}：失败（{note or '工具报告失败'}）"


_NOTES_ZH = {
    NOTE_DCGM_FAIL: "dcgmi diag 报告失败",
    NOTE_DCGM_SKIP: "dcgmi diag 报告全部跳过",
    NOTE_DCGM_INCOMPLETE: "dcgmi diag 输出在结果之前中断",
    NOTE_NCCL_WRONG: "nccl-tests 报告 {count} 个错误结果",
    NOTE_FIO_ERRORS: "fio 作业以错误结束（{jobs}）",
    NOTE_FOREIGN_GPU: "运行于 {gpu}，并非声明的 {claimed}",
}
_DEFAULT_NOTES = {
    UNPROVEN: "every test was skipped",
    RUN_FAILED: "the tool reported a failure",
}


# -- reading rows stored before the structure --------------------------------------------------
#
# For old rows only: answers and scores stored before the shortfalls were kept as structure
# hold the English words alone (the explanation, the failure note). These read them back into
# their parts; everything written since carries the parts and never goes through here.

_NOTE_PATTERNS = (
    (NOTE_DCGM_FAIL, re.compile(r"^dcgmi diag reported fail$")),
    (NOTE_DCGM_SKIP, re.compile(r"^dcgmi diag reported skip$")),
    (NOTE_DCGM_INCOMPLETE, re.compile(r"^dcgmi diag output ends before its result$")),
    (NOTE_NCCL_WRONG, re.compile(r"^nccl-tests reported (?P<count>[\d.e+]+) wrong results$")),
    (NOTE_FIO_ERRORS, re.compile(r"^fio jobs ended in an error \((?P<jobs>.*)\)$")),
    (NOTE_FOREIGN_GPU, re.compile(r"^ran on (?P<gpu>.+), not the claimed (?P<claimed>.+)$")),
)


def note_parts(note: str) -> tuple[str, dict[str, str]] | None:
    """An English failure note (old rows only) as (code, parts), e.g. ("nccl_wrong",
    {"count": "3"}); None for a note this module did not write."""
    for code, pattern in _NOTE_PATTERNS:
        match = pattern.match(note or "")
        if match:
            return code, match.groupdict()
    return None


_RUN_KINDS_BY_LABEL = {label: kind for kind, label in RUN_LABELS.items()}
_EXPLANATION = re.compile(
    r"^POC run (?P<label>.+?)(?: on (?P<where>[^:]+?))?: "
    r"(?:(?P<missing>missing at the deadline)|(?P<state>checked nothing|failed) \((?P<note>.*)\))$"
)


def parse_explanations(text: str) -> tuple[PocShortfall, ...] | None:
    """For old rows only: the shortfalls a stored English explanation
    (:attr:`PocShortfall.explanation_en`, several joined by "; ") names, as structured parts
    (kind, node or pair, reason, note) for a page to word in its reader's language; None when
    ``text`` is not such an explanation. The evidence reference is not part of the
    explanation (""). Rows written since carry :meth:`PocShortfall.as_dict` instead."""
    found = []
    for part in re.split(r"; (?=POC run )", text or ""):
        match = _EXPLANATION.match(part)
        if match is None:
            return None
        kind = _RUN_KINDS_BY_LABEL.get(match["label"])
        if kind is None:
            return None
        where = (match["where"] or "").replace(" and ", "~")
        if match["missing"]:
            reason, note = MISSING, ""
        else:
            reason = UNPROVEN if match["state"] == "checked nothing" else RUN_FAILED
            note = match["note"]
            if note == _DEFAULT_NOTES[reason]:
                note = ""
        found.append(
            PocShortfall(
                run_key=f"{kind}@{where}" if where else kind, kind=kind, reason=reason, note=note
            )
        )
    return tuple(found) or None
