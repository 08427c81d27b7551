"""Evidence that cannot judge a claim never refutes it: a GPU count from a partial listing is a
lower bound, only the compute-fabric ports of the claimed link layer are rails, and a fio run
below the bar for throughput (or with no local device recorded) cannot contradict an NVMe claim.

Built from the real outputs in tests/scoring/evidence/samples (some edited as a person would
cut them: a block deleted, an excerpt marker pasted in), each named where it is read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from scoring.evidence import parse_bytes
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate

CJK = re.compile(r"[\u4e00-\u9fff]")
SAMPLES = Path(__file__).parent / "evidence" / "samples"


def sample(rel: str) -> str:
    return (SAMPLES / rel).read_text(encoding="utf-8")


def parsed_text(text: str, rel: str, node: str = "gpu-01") -> NodeEvidence:
    result = parse_bytes(text.encode())
    return NodeEvidence(node, 1, result.kind, result.metrics, rel, None)


def parsed(rel: str, node: str = "gpu-01") -> NodeEvidence:
    return parsed_text(sample(rel), rel, node)


def claims(**overrides: Any) -> Claims:
    base: dict[str, Any] = {"gpu_model": "H100 SXM5 80GB", "gpus_per_node": 8, "gpu_memory_gib": 80}
    base.update(overrides)
    return Claims(**base)


# --- 1. GPU count from a partial listing ------------------------------------------------------

H100_CSV = "nvidia_smi_query/mlengineering-h100-query-gpu-vbios-csv.txt"
A100_TABLE = "nvidia_smi/dgx-a100-8gpu-driver450-mig-pending.txt"
A100_CLAIM = {"gpu_model": "A100 SXM4 40GB", "gpu_memory_gib": 40}


def _without_gpu_block(text: str, index: int) -> str:
    """The table with GPU ``index``'s block (its three lines and separator) deleted."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if re.match(rf"^\|\s+{index}\s+A100", line))
    return "".join(lines[:start] + lines[start + 4 :])


def test_csv_excerpt_of_8_h100s_is_a_lower_bound_not_a_contradiction():
    item = verify_candidate(claims(), [parsed(H100_CSV)]).items["gpu_match"]
    assert item.status == "unverifiable"
    assert "only 2 GPU(s) are shown because the listing was cut" in item.explanation_en
    assert "lower bound" in item.explanation_en
    assert "下限" in item.explanation_zh and CJK.search(item.explanation_zh)
    assert item.details["nodes"]["gpu-01"]["gpu_count_partial"] == "excerpt"


def test_csv_excerpt_still_verifies_a_count_it_reaches():
    item = verify_candidate(claims(gpus_per_node=2), [parsed(H100_CSV)]).items["gpu_match"]
    assert item.status == "verified"
    assert "at least 2 ×" in item.explanation_en and "至少 2 ×" in item.explanation_zh


def test_csv_excerpt_with_the_wrong_model_still_contradicts():
    item = verify_candidate(claims(gpu_model="A100 SXM4 80GB"), [parsed(H100_CSV)]).items[
        "gpu_match"
    ]
    assert item.status == "contradicted"
    assert "not the claimed A100 SXM4 80GB" in item.explanation_en


def test_csv_filtered_by_id_is_partial():
    text = sample(H100_CSV).replace("[...]\n", "").replace("--query-gpu", "-i 0,7 --query-gpu")
    ev = parsed_text(text, "query-i.txt")
    assert ev.metrics["gpu_count_partial"] == "filter"
    assert verify_candidate(claims(), [ev]).items["gpu_match"].status == "unverifiable"


def test_complete_csv_that_falls_short_still_contradicts():
    # The same rows without the excerpt marker: a whole listing of 2 GPUs.
    ev = parsed_text(sample(H100_CSV).replace("[...]\n", ""), "query-whole.txt")
    assert ev.metrics["gpu_count_partial"] is None
    item = verify_candidate(claims(), [ev]).items["gpu_match"]
    assert item.status == "contradicted"
    assert "only 2 GPU(s) are visible, fewer than the 8 claimed" in item.explanation_en


def test_table_with_a_gpu_block_deleted_is_partial_by_its_index_gap():
    ev = parsed_text(_without_gpu_block(sample(A100_TABLE), 3), "nvidia-smi-edited.txt")
    assert (ev.metrics["gpu_count"], ev.metrics["gpu_count_partial"]) == (7, "index_gap")
    item = verify_candidate(claims(**A100_CLAIM), [ev]).items["gpu_match"]
    assert item.status == "unverifiable"
    assert "GPU numbers are missing" in item.explanation_en


def test_whole_table_is_complete_and_an_excerpt_marker_makes_it_partial():
    whole = parsed(A100_TABLE)
    assert (whole.metrics["gpu_count"], whole.metrics["gpu_count_partial"]) == (8, None)
    assert verify_candidate(claims(**A100_CLAIM), [whole]).items["gpu_match"].status == ("verified")
    # The last GPU block cut off and "[...]" pasted in its place.
    text = _without_gpu_block(sample(A100_TABLE), 7).replace("|   6  A100", "[...]\n|   6  A100", 1)
    assert parsed_text(text, "cut.txt").metrics["gpu_count_partial"] == "excerpt"


def test_a_complete_count_wins_over_a_partial_one():
    # nvidia-smi table (8 GPUs, complete) beside the 2-row CSV excerpt: 8 is the count.
    evidence = [parsed(H100_CSV), parsed(A100_TABLE)]
    item = verify_candidate(claims(**A100_CLAIM), evidence).items["gpu_match"]
    assert item.details["nodes"]["gpu-01"]["gpu_count"] == 8
    assert item.details["nodes"]["gpu-01"]["gpu_count_partial"] is None


def test_q_excerpt_without_attached_gpus_total_is_partial():
    ev = parsed("nvidia_smi_query/rtxpro6000-blackwell-mig-q-trimmed.txt")
    assert (ev.metrics["gpu_count"], ev.metrics["gpu_count_partial"]) == (1, "no_total")
    q_claims = claims(gpu_model="RTX PRO 6000 Blackwell", gpu_memory_gib=96, gpus_per_node=8)
    assert verify_candidate(q_claims, [ev]).items["gpu_match"].status != "contradicted"


def test_q_with_attached_gpus_total_counts_every_gpu_although_one_block_is_shown():
    ev = parsed("nvidia_smi_query/gcp-a3-h100-vm-pod-q-passthrough-driver535.txt")
    assert ev.metrics["gpu_count_partial"] is None


def test_topo_header_with_a_gpu_column_missing_is_partial():
    text = sample("nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt")
    assert parsed_text(text, "topo.txt").metrics["gpu_count_partial"] is None
    lines = text.splitlines()
    # GPU3's column and row removed, as a hand-edited matrix would be.
    header = lines[1].split("\t")
    col = header.index("GPU3")
    kept = [lines[0]]
    for line in lines[1:]:
        cells = line.split("\t")
        if cells[0] == "GPU3":
            continue
        if len(cells) > col and (cells[0] == "" or cells[0].startswith(("GPU", "NIC"))):
            del cells[col]
        kept.append("\t".join(cells))
    ev = parsed_text("\n".join(kept) + "\n", "topo-edited.txt")
    assert (ev.metrics["gpu_count"], ev.metrics["gpu_count_partial"]) == (7, "index_gap")


# --- 2. Compute rails are the ports of the claimed fabric's link layer -------------------------

# 8 x NDR InfiniBand at 400 plus mlx5_bond_0 (Link layer: Ethernet, rate 200), the front end.
IB_WITH_BOND = "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt"


def fabric_claims(fabric: str, rate: int, nics: int = 8) -> Claims:
    return claims(fabric=fabric, fabric_rate_gbit_s=rate, nics_per_node=nics)


def test_the_ethernet_bond_is_not_the_slowest_infiniband_rail():
    evidence = [parsed(IB_WITH_BOND)]
    report = verify_candidate(fabric_claims("infiniband", 400), evidence)
    facts = measured_facts(report, evidence)
    assert facts.ib_rate_gbit_s_min == 400.0  # was 200: the bond's rate
    assert facts.ib_ports_down == 0
    item = report.items["fabric"]
    assert item.status == "verified"
    assert "Left out as not compute rails (another link layer" in item.explanation_en
    assert "mlx5_bond_0 (Ethernet, Active, rate 200)" in item.explanation_en
    assert "mlx5_bond_0（Ethernet，Active，速率 200）" in item.explanation_zh
    assert item.details["nodes"]["gpu-01"]["left_out_ports"] == ["mlx5_bond_0 port 1"]


def test_without_a_claim_the_rails_are_the_fastest_ports_link_layer():
    evidence = [parsed(IB_WITH_BOND)]
    report = verify_candidate(claims(), evidence)
    assert measured_facts(report, evidence).ib_rate_gbit_s_min == 400.0
    item = report.items["fabric"]
    assert item.status == "unverifiable"
    assert "the fastest active ports are InfiniBand): mlx5_bond_0" in item.explanation_en
    assert item.details["left_out_ports"] == {"gpu-01": ["mlx5_bond_0 port 1"]}


def test_a_roce_claim_on_this_node_is_served_by_its_faster_infiniband_ports():
    evidence = [parsed(IB_WITH_BOND)]
    report = verify_candidate(fabric_claims("roce", 400), evidence)
    assert report.items["fabric"].status == "verified"
    assert measured_facts(report, evidence).ib_rate_gbit_s_min == 400.0
    assert "mlx5_bond_0" in report.items["fabric"].explanation_en


def test_a_slow_infiniband_rail_still_counts():
    # One NDR port renegotiated at 200: a real rail fault the layer filter must not hide.
    text = sample(IB_WITH_BOND).replace("Rate: 400", "Rate: 200", 1)
    evidence = [parsed_text(text, "ibstat-slow-rail.txt")]
    report = verify_candidate(fabric_claims("infiniband", 400), evidence)
    assert measured_facts(report, evidence).ib_rate_gbit_s_min == 200.0
    assert report.items["fabric"].status == "verified"  # a fault, scored at the rate seen
    assert [f.details["ca"] for f in report.faults if f.kind == "port_rate_low"] == ["mlx5_0"]


def test_an_ethernet_management_port_on_a_roce_node_is_not_left_out_by_layer():
    # All-Ethernet RoCE node (400G rails, 100G and down ports): no port of another layer.
    evidence = [parsed("ibstat/gpud-h100-roce-cx7-some-down-polling.txt")]
    report = verify_candidate(fabric_claims("roce", 400), evidence)
    assert report.items["fabric"].details["nodes"]["gpu-01"]["left_out_ports"] == []
    assert "Left out" not in report.items["fabric"].explanation_en


# --- 3. A fio run that cannot judge an NVMe throughput claim does not refute it ----------------

# fio 3.33: rw=read bs=1M, psync (one I/O in flight), buffered (no direct in the listed
# options), a 16 MiB file, 2 s, on vda: 850069354 bytes/s = 0.85 GB/s.
SEQREAD = "fio/fio333-seqread-normal-json.txt"
SEQREAD_TEXT = "fio/fio333-seqread-normal.txt"


def nvme_claims(read_gbyte_s: float) -> Claims:
    return claims(nvme_read_gbyte_s=read_gbyte_s, nvme_capacity_tib=30)


def _fit_run(text: str) -> str:
    """The same JSON as a run fit to judge a drive would print it: direct I/O, libaio at
    iodepth 32, a 4 GiB file, 30 s, on nvme0n1 (the figures themselves unchanged)."""
    json_part = text[text.index("{") :]
    json_part = (
        json_part.replace(
            '"ioengine" : "psync"', '"ioengine" : "libaio", "direct" : "1", "iodepth" : "32"'
        )
        .replace('"size" : "16M"', '"size" : "4G"')
        .replace('"runtime" : 2002', '"runtime" : 30002')
        .replace('"name" : "vda"', '"name" : "nvme0n1"')
    )
    return json_part


def test_parser_records_what_the_run_was():
    metrics = parsed(SEQREAD).metrics
    (job,) = metrics["jobs"]
    assert metrics["disks"] == ["vda"]
    assert (job["direct"], job["ioengine"], job["iodepth"], job["numjobs"]) == (
        False,
        "psync",
        1,
        1,
    )
    assert (job["file_size_bytes"], job["runtime_s"]) == (16 * 1024**2, 2.002)
    assert job["target"] == "/tmp/ev/fio/testfile"
    # The text report: no direct= (None), the rest from the header, layout and read lines.
    (text_job,) = parsed(SEQREAD_TEXT).metrics["jobs"]
    assert (text_job["direct"], text_job["ioengine"], text_job["runtime_s"]) == (
        None,
        "psync",
        2.003,
    )
    assert text_job["file_size_bytes"] == 16 * 1024**2


def test_a_psync_qd1_two_second_16mib_run_cannot_refute_25_gbyte_s():
    evidence = [parsed(SEQREAD)]
    report = verify_candidate(nvme_claims(25), evidence)
    item = report.items["local_nvme"]
    assert item.status == "unverifiable"  # was contradicted
    en = item.explanation_en
    assert "read 0.85 GB/s against 25 GB/s claimed comes from a run that cannot judge" in en
    for reason in (
        "buffered I/O (direct=0",
        "1 I/O(s) in flight (psync, iodepth 1 × 1 job(s), 1 MiB in flight), under the 32 × 128 KiB",
        "a 2 s run (under 10 s)",
        "a 16 MiB file (under 1 GiB",
        "it ran on vda, not a device named as NVMe",
    ):
        assert reason in en
    assert "缓冲 I/O" in item.explanation_zh and "vda" in item.explanation_zh
    assert item.details["nodes"]["gpu-01"]["read_verdict"] == "unfit"
    assert measured_facts(report, evidence).nvme_read_mbyte_s is None


def test_the_same_run_verifies_no_claim_it_meets_either():
    # Buffered reads of a 16 MiB file measure the page cache: a claim they meet is no more
    # verified than one they miss is contradicted (expert review of stop 33).
    evidence = [parsed(SEQREAD)]
    report = verify_candidate(nvme_claims(0.8), evidence)
    item = report.items["local_nvme"]
    assert item.status == "unverifiable"
    assert "buffered I/O" in item.explanation_en and "16 MiB file" in item.explanation_en
    assert measured_facts(report, evidence).nvme_read_mbyte_s is None


def test_the_text_report_of_a_short_run_cannot_refute_either():
    item = verify_candidate(nvme_claims(25), [parsed(SEQREAD_TEXT)]).items["local_nvme"]
    assert item.status == "unverifiable"
    assert "a 2 s run" in item.explanation_en


def test_a_run_fit_to_judge_on_nvme_that_falls_short_contradicts():
    evidence = [parsed_text(_fit_run(sample(SEQREAD)), "fio-fit.json")]
    (job,) = evidence[0].metrics["jobs"]
    assert (job["direct"], job["iodepth"], job["runtime_s"]) == (True, 32, 30.002)
    report = verify_candidate(nvme_claims(25), evidence)
    item = report.items["local_nvme"]
    assert item.status == "contradicted"
    assert "in a run able to judge an NVMe drive" in item.explanation_en
    assert measured_facts(report, evidence).nvme_read_mbyte_s == 850.069


def test_a_run_naming_no_device_is_not_local_disk_evidence():
    # The fit run with its disk_util left out (a network mount, or disk stats unavailable).
    text = _fit_run(sample(SEQREAD))
    text = text[: text.index(',\n  "disk_util"')] + "\n}\n"
    ev = parsed_text(text, "fio-no-disks.json")
    assert ev.metrics["disks"] is None
    for claimed, status in ((25, "unverifiable"), (0.8, "unverifiable")):
        item = verify_candidate(nvme_claims(claimed), [ev]).items["local_nvme"]
        assert item.status == status
        assert "names no block device it drove" in item.explanation_en
        assert "无法证明在本地盘上运行" in item.explanation_zh


def test_item_5_says_what_fio_records_consistently_with_item_4():
    report = verify_candidate(claims(distributed_fs="Lustre"), [parsed(SEQREAD)])
    item = report.items["distributed_storage"]
    assert item.status == "unverifiable"
    assert "fio records the local block devices it drove" in item.explanation_en
    assert "本地块设备" in item.explanation_zh


# --- properties ------------------------------------------------------------------------------

PARTIAL_CODES = ("excerpt", "filter", "unread_rows", "no_total", "index_gap", "cut")


@given(
    shown=st.integers(min_value=1, max_value=16),
    claimed=st.integers(min_value=1, max_value=16),
    code=st.sampled_from(PARTIAL_CODES),
)
def test_a_partial_gpu_listing_never_contradicts_the_count(shown, claimed, code):
    metrics = {
        "gpu_count": shown,
        "gpu_count_partial": code,
        "product_names": ["NVIDIA H100 80GB HBM3"] * shown,
        "memory_total_mib": [81559] * shown,
    }
    ev = NodeEvidence("gpu-01", 1, "nvidia_smi_query", metrics, "q.csv", None)
    item = verify_candidate(claims(gpus_per_node=claimed), [ev]).items["gpu_match"]
    assert item.status == ("verified" if shown >= claimed else "unverifiable")


@given(
    mbyte_s=st.floats(min_value=1, max_value=60_000),
    claimed=st.floats(min_value=0.5, max_value=60),
    flaw=st.sampled_from(["buffered", "shallow", "short", "small", "sata", "no_disks"]),
)
def test_a_run_below_the_bar_never_contradicts_a_throughput_claim(mbyte_s, claimed, flaw):
    job = {
        "name": "seq",
        "rw": "read",
        "bs_bytes": 1048576,
        "iodepth": 32,
        "numjobs": 4,
        "direct": True,
        "ioengine": "libaio",
        "file_size_bytes": 64 * 1024**3,
        "runtime_s": 60.0,
        "read_bw_mbyte_s": mbyte_s,
        "write_bw_mbyte_s": 0.0,
    }
    disks: list[str] | None = ["nvme0n1"]
    if flaw == "buffered":
        job["direct"] = False
    elif flaw == "shallow":
        # One synchronous job: one 1 MiB I/O in flight, under the 4 MiB a datasheet's needs.
        job["ioengine"], job["numjobs"] = "psync", 1
    elif flaw == "short":
        job["runtime_s"] = 2.0
    elif flaw == "small":
        job["file_size_bytes"] = 16 * 1024**2
    elif flaw == "sata":
        disks = ["sda"]
    else:
        disks = None
    ev = NodeEvidence("gpu-01", 1, "fio", {"jobs": [job], "disks": disks}, "fio.json", None)
    item = verify_candidate(nvme_claims(claimed), [ev]).items["local_nvme"]
    assert item.status != "contradicted"
    # Without the flaw the same figure is judged either way.
    fit = NodeEvidence(
        "gpu-01",
        1,
        "fio",
        {
            "jobs": [
                {
                    **job,
                    "direct": True,
                    "ioengine": "libaio",
                    "runtime_s": 60.0,
                    "file_size_bytes": 64 * 1024**3,
                }
            ],
            "disks": ["nvme0n1"],
        },
        "fio.json",
        None,
    )
    met = mbyte_s >= claimed * 1000 * 0.8
    expected = "verified" if met else "contradicted"
    assert verify_candidate(nvme_claims(claimed), [fit]).items["local_nvme"].status == expected
