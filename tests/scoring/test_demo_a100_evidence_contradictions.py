"""The demo A100 candidate's evidence, as a trust review read it (evaluation 1, "Jiangnan").

Its offering claims 8 x A100-SXM4-80GB per node and 4 x 200 Gb/s RoCE. Its two uploads hold
real outputs (tests/scoring/evidence/samples, PROVENANCE.tsv):

- both nccl-tests runs list A100-SXM4-40GB devices, on hosts that are not the nodes they are
  filed under (inst-lscuv-ao-ub24 under a100-node-07; nccl-tests-efa-worker-0/1 under
  a100-node-08). Item 1 read nvidia-smi alone and said "verified";
- node-07's ibstat has eight ConnectX-7 400 GbE ports (six Active, two Down) and four
  ConnectX-6 Dx 100 GbE ports (two dual-port cards). The fabric item counted six ports at
  >= 200 Gb/s while listing the ConnectX-6 Dx ports as faulty rails, and the network rule and
  the cost model read the slowest "rail" from them: 4 x 100 Gb/s per node, 50 Gb/s per GPU;
- upload 2 was measured on 2023-06-07 and nothing said so where it was used.
"""

from __future__ import annotations

from pathlib import Path

from scoring.evidence.registry import parse_text
from scoring.verification import Claims, NodeEvidence, verify_candidate, with_measured_dates
from scoring.verification.facts import measured_facts

DEMO = Path(__file__).parents[2] / "fixtures" / "demo-evidence"
SAMPLES = Path(__file__).parent / "evidence" / "samples"


def _claims() -> Claims:
    # fixtures/demo.json, the A100 offering of candidate 2 in evaluation 1
    return Claims(
        gpu_model="NVIDIA A100-SXM4-80GB",
        gpus_per_node=8,
        gpu_memory_gib=80,
        gpu_form_factor="sxm",
        nvlink_topology="full_mesh",
        fabric="roce",
        fabric_rate_gbit_s=200,
        nics_per_node=4,
        node_count=8,
    )


def _file(node: str, upload: int, name: str, when: str | None = None) -> NodeEvidence:
    text = (DEMO / f"2-{node}" / name).read_text()
    result = parse_text(text)
    return NodeEvidence(node, upload, result.kind, result.metrics, name, measured_at=when)


def _demo_evidence() -> list[NodeEvidence]:
    node07 = "2023-06-07T19:32:16+00:00"
    return [
        _file("a100-node-07", 2, "all_reduce_perf.txt", node07),
        _file("a100-node-07", 2, "dmidecode.txt", node07),
        _file("a100-node-07", 2, "ibstat.txt", node07),
        _file("a100-node-07", 2, "nvidia-smi-q.txt", node07),
        _file("a100-node-07", 2, "nvidia-smi-topo.txt", node07),
        _file("a100-node-08", 3, "all_reduce_perf.txt", "2026-10-10T08:00:00+00:00"),
    ]


def test_the_demo_files_are_the_real_samples():
    pairs = [
        ("a100-node-07/all_reduce_perf.txt", "nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt"),
        ("a100-node-08/all_reduce_perf.txt", "nccl_tests/aws-p4d-a100-2node-efa-nccl283.txt"),
        ("a100-node-07/ibstat.txt", "ibstat/gpud-h100-roce-cx7-some-down-polling.txt"),
    ]
    for demo, sample in pairs:
        assert (DEMO / f"2-{demo}").read_bytes() == (SAMPLES / sample).read_bytes()


def test_runs_on_40gb_cards_of_other_hosts_keep_item_1_from_verified():
    item = verify_candidate(_claims(), _demo_evidence()).items["gpu_match"]
    # Before: "verified", "Measured 8 x NVIDIA A100-SXM4-80GB (80 GB in the model name) on
    # node a100-node-07 matches the claim 8 x NVIDIA A100-SXM4-80GB (tolerance 5 %)."
    assert item.status == "unverifiable"
    en, zh = item.explanation_en, item.explanation_zh
    assert (
        "the nccl-tests run a100-node-07: all_reduce_perf.txt (upload 2) ran on host(s) "
        "inst-lscuv-ao-ub24, not on node a100-node-07 (the upload's node name is not the "
        "hostname in the file), and its device lines name NVIDIA A100-SXM4-40GB (40 GB, not "
        "80 GB), not the claimed NVIDIA A100-SXM4-80GB"
    ) in en
    assert "nccl-tests-efa-worker-0, nccl-tests-efa-worker-1, not on node a100-node-08" in en
    assert (
        "nccl-tests 结果 a100-node-07：all_reduce_perf.txt（上传 2）运行于主机 "
        "inst-lscuv-ao-ub24，而非节点 a100-node-07"
    ) in zh
    assert "设备行显示 NVIDIA A100-SXM4-40GB（显存 40 GB，并非 80 GB）" in zh
    assert item.evidence_ref == "a100-node-07: all_reduce_perf.txt (upload 2)"
    nodes = item.details["nodes"]
    assert nodes["a100-node-07"]["status"] == nodes["a100-node-08"]["status"] == "unverifiable"


def test_a_run_naming_the_node_and_another_gpu_contradicts_item_1():
    evidence = [
        ev
        if ev.kind != "nccl_tests" or ev.node_name != "a100-node-07"
        else NodeEvidence(
            "inst-lscuv-ao-ub24", 2, ev.kind, ev.metrics, ev.source, measured_at=ev.measured_at
        )
        for ev in _demo_evidence()
        if ev.node_name == "a100-node-07"
    ]
    item = verify_candidate(_claims(), evidence).items["gpu_match"]
    assert item.status == "contradicted"
    assert item.details["nodes"]["inst-lscuv-ao-ub24"]["status"] == "contradicted"
    assert (
        "On node inst-lscuv-ao-ub24 the nccl-tests run inst-lscuv-ao-ub24: all_reduce_perf.txt "
        "(upload 2) lists its devices on host inst-lscuv-ao-ub24 as NVIDIA A100-SXM4-40GB "
        "(40 GB, not 80 GB), not the claimed NVIDIA A100-SXM4-80GB."
    ) in item.explanation_en


def test_the_foreign_runs_are_not_the_bus_bandwidth_and_their_hosts_are_named():
    report = verify_candidate(_claims(), _demo_evidence())
    assert report.busbw_fraction is None and report.busbw.status == "unverifiable"
    assert report.busbw.details["foreign_runs"] == [
        "a100-node-07: all_reduce_perf.txt (upload 2): ran on NVIDIA A100-SXM4-40GB, not the "
        "claimed NVIDIA A100-SXM4-80GB (40 GB, not 80 GB), on host(s) inst-lscuv-ao-ub24, not "
        "node a100-node-07",
        "a100-node-08: all_reduce_perf.txt (upload 3): ran on A100-SXM4-40GB, not the claimed "
        "NVIDIA A100-SXM4-80GB (40 GB, not 80 GB), on host(s) nccl-tests-efa-worker-0, "
        "nccl-tests-efa-worker-1, not node a100-node-08",
    ]
    assert "运行于主机 inst-lscuv-ao-ub24，并非节点 a100-node-07" in report.busbw.explanation_zh
    # The must-have's reason reads this count: runs were uploaded, none was usable.
    assert measured_facts(report, _demo_evidence()).busbw_runs_set_aside == 2


def test_the_front_end_100g_cards_are_not_compute_rails():
    report = verify_candidate(_claims(), _demo_evidence())
    fabric = report.items["fabric"]
    assert fabric.status == "verified"
    node = fabric.details["nodes"]["a100-node-07"]
    assert node["active_rail_ports"] == 6
    assert node["faulty_ports"] == [
        "mlx5_11 (ConnectX-7) Down/Polling at rate 40",
        "mlx5_5 (ConnectX-7) Down/Disabled at rate 40",
    ]
    assert node["left_out_ports"] == [
        "mlx5_1 port 1",
        "mlx5_2 port 1",
        "mlx5_7 port 1",
        "mlx5_8 port 1",
    ]
    en = fabric.explanation_en
    # Before: "... 6 Ethernet port(s) Active at ≥ 200 Gb/s, meeting the claim 4 x 200 Gb/s
    # RoCE. Faulty extra ports: mlx5_1 (ConnectX-6 Dx) Active/LinkUp at rate 100; ..."
    assert en.startswith(
        "ibstat on node a100-node-07 shows 6 Ethernet port(s) Active at ≥ 200 Gb/s (the "
        "slowest at 400 Gb/s), meeting the claim 4 × 200 Gb/s RoCE. Faulty extra ports: "
        "mlx5_11 (ConnectX-7) Down/Polling at rate 40; mlx5_5 (ConnectX-7) Down/Disabled at "
        "rate 40. Left out as not compute rails (another card model, none of its ports at the "
        "claimed rate, beside the ConnectX-7 rails: a front-end or storage network): mlx5_1 "
        "(ConnectX-6 Dx) Active/LinkUp at rate 100;"
    )
    assert en.endswith(
        "The network rules count 4 rail(s) (at most the 4 claimed) at the slowest rail's rate: "
        "4 × 400 Gb/s per node, 200 Gb/s per GPU. The cost model counts the same rails at the "
        "claimed 200 Gb/s (4 × 200 Gb/s per node): it takes a measured rate only below the "
        "claim."
    )
    assert fabric.explanation_zh.endswith(
        "网络评分计入 4 个计算端口（至多为声明的 4 个），按最慢端口速率计：每节点 4 × 400 Gb/s，"
        "每 GPU 200 Gb/s。成本模型按声明速率 200 Gb/s 计入同样的端口（每节点 4 × 200 Gb/s）："
        "实测速率仅在低于声明时才被采用。"
    )
    assert "属于前端或存储网络" in fabric.explanation_zh
    # No "negotiated a slower link" fault for a 100 GbE card; the two Down ConnectX-7 remain.
    kinds = sorted((f.kind, f.details["ca"]) for f in report.faults if f.kind.startswith("port"))
    assert kinds == [("port_down", "mlx5_11"), ("port_down", "mlx5_5")]


def test_the_rules_and_the_cost_model_read_what_the_fabric_item_counts():
    evidence = _demo_evidence()
    report = verify_candidate(_claims(), evidence)
    facts = measured_facts(report, evidence)
    # Before: 100 Gb/s (the ConnectX-6 Dx front-end ports) x 4 rails = 50 Gb/s per GPU.
    assert facts.ib_rate_gbit_s_min == 400.0
    assert facts.ib_rails_min == 4
    assert facts.ib_ports_down == 2
    assert facts.ib_rails_min * facts.ib_rate_gbit_s_min / 8 == 200.0


def test_a_slow_port_of_the_rails_own_card_model_stays_a_faulty_rail():
    evidence = _demo_evidence()
    ibstat = next(ev for ev in evidence if ev.kind == "ibstat")
    ports = [dict(p) for p in ibstat.metrics["ports"]]
    for port in ports:
        if port["ca"] == "mlx5_0":
            port["rate_gbit_s"] = 100.0  # a ConnectX-7 negotiated at 100: a fault
    slowed = NodeEvidence(
        ibstat.node_name, 2, "ibstat", {**ibstat.metrics, "ports": ports}, ibstat.source
    )
    report = verify_candidate(_claims(), [slowed])
    node = report.items["fabric"].details["nodes"]["a100-node-07"]
    assert "mlx5_0 (ConnectX-7) Active/LinkUp at rate 100" in node["faulty_ports"]
    assert "mlx5_0 port 1" not in node["left_out_ports"]


def test_each_verdict_says_when_its_evidence_was_measured():
    evidence = _demo_evidence()
    report = with_measured_dates(verify_candidate(_claims(), evidence), evidence, max_age_days=None)
    topology = report.items["nvlink_topology"]
    assert topology.explanation_en == (
        "nvidia-smi topo -m on node a100-node-07 shows an all-to-all NVLink mesh between 8 "
        "GPUs, as claimed. Evidence measured on 2023-06-07 (upload 2); the evaluation sets no "
        "maximum evidence age, so evidence of any age is used."
    )
    assert topology.explanation_zh.endswith(
        "证据测量于 2023-06-07（上传 2）；该评估未设定证据最长有效期，任何时间测得的证据均被采用。"
    )
    assert topology.details["measured_on"] == {"2": "2023-06-07"}
    for key in ("gpu_match", "fabric"):
        assert "Evidence measured on 2023-06-07 (upload 2)" in report.items[key].explanation_en
    # Items that cite no evidence say nothing of dates.
    assert "measured on" not in report.items["sla"].explanation_en
    limited = with_measured_dates(verify_candidate(_claims(), evidence), evidence, max_age_days=365)
    assert limited.items["fabric"].explanation_en.endswith(
        "Evidence measured on 2023-06-07 (upload 2); within the evaluation's maximum evidence "
        "age of 365 days."
    )
    assert limited.items["fabric"].explanation_zh.endswith(
        "证据测量于 2023-06-07（上传 2）；在该评估规定的证据最长有效期 365 天之内。"
    )
