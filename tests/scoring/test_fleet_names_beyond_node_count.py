"""Fleet figures read over node names are bounded by the nodes the candidate has (auditor
review of stop 33): a good node's files sent again under other names are not more nodes, so
they can neither dilute a bad node's Xid errors nor move the NVMe figure from the worst node
to a percentile. With no more names than nodes the figures read as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import parse_bytes
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate

SAMPLES = Path(__file__).parent / "evidence" / "samples"
XID79 = "kernel_log/forum-syslog-hostname-prefix-xid79-fallen-off-bus.txt"
CLEAN = "kernel_log/devmachine-kvm-dmesg-clean-boot-excerpt.txt"
SMI = "nvidia_smi/nccl-tests-issue264-h100x8-driver560-persistence-off.txt"


def _parsed(rel: str, node: str, upload: int) -> NodeEvidence:
    result = parse_bytes((SAMPLES / rel).read_bytes())
    return NodeEvidence(node, upload, result.kind, result.metrics, rel, None)


def _claims(node_count: int, **extra) -> Claims:
    return Claims(
        gpu_model="NVIDIA H100 SXM5 80GB",
        gpus_per_node=8,
        gpu_memory_gib=80,
        node_count=node_count,
        **extra,
    )


def _facts(node_count: int, evidence: list[NodeEvidence], **extra):
    return measured_facts(verify_candidate(_claims(node_count, **extra), evidence), evidence)


def _node(log: str, node: str, upload: int) -> list[NodeEvidence]:
    # A kernel log counts on a node that shows a GPU: each node sends nvidia-smi too.
    return [_parsed(log, node, upload), _parsed(SMI, node, upload)]


def _kernel_logs(copies: int) -> list[NodeEvidence]:
    logs = _node(XID79, "node-a", 1) + _node(CLEAN, "node-b", 2)
    for i in range(copies):
        logs += _node(CLEAN, f"node-b-copy-{i}", 3 + i)
    return logs


def test_clean_copies_under_new_names_do_not_dilute_a_bad_nodes_xid_share():
    honest = _facts(2, _kernel_logs(0))
    assert honest.xid_nodes == 1 and honest.xid_node_share == 0.5
    inflated = _facts(2, _kernel_logs(7))
    assert inflated.xid_nodes == 1 and inflated.xid_node_share == 0.5
    # A candidate of 16 nodes with 9 logs read: the share is of the nodes read, as before.
    assert _facts(16, _kernel_logs(7)).xid_node_share == round(1 / 9, 3)


def _fio(node: str, upload: int, read_mbyte_s: float) -> NodeEvidence:
    job = {
        "name": "seqread", "groupid": 0, "rw": "read", "bs_bytes": 1 << 20, "iodepth": 32,
        "numjobs": 4, "direct": True, "ioengine": "libaio", "file_size_bytes": 64 << 30,
        "runtime_s": 60.0, "target": "/dev/nvme0n1", "error": None,
        "read_bw_mbyte_s": read_mbyte_s, "read_iops": read_mbyte_s, "write_bw_mbyte_s": 0.0,
        "write_iops": 0.0,
    }  # fmt: skip
    metrics = {"read_bw_mbyte_s": read_mbyte_s, "jobs": [job], "disks": ["nvme0n1"]}
    return NodeEvidence(node, upload, "fio", metrics, "fio.json", None)


@pytest.mark.parametrize("copies", [0, 19, 40])
def test_copies_of_a_fast_node_do_not_lift_the_nvme_figure_off_the_slow_node(copies):
    evidence = [_fio("node-a", 1, 2000.0), _fio("node-b", 2, 12500.0)]
    evidence += [_fio(f"node-b-copy-{i}", 3 + i, 12500.0) for i in range(copies)]
    assert _facts(2, evidence).nvme_read_mbyte_s == 2000.0


def test_a_fleet_of_as_many_nodes_as_names_reads_the_5th_percentile():
    # 40 real nodes, one slow: the 5th percentile (the 2nd worst of 40) judges, as before.
    evidence = [_fio("node-slow", 1, 2000.0)]
    evidence += [_fio(f"node-{i:02d}", 2 + i, 12500.0) for i in range(39)]
    assert _facts(40, evidence).nvme_read_mbyte_s == 12500.0
    assert _facts(39, evidence).nvme_read_mbyte_s == 2000.0
