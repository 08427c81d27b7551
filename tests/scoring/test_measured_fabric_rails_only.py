"""The expected bus bandwidth is raised to the fabric ibstat shows only by compute rails
(expert review): a BlueField's Ethernet ports beside InfiniBand rails, or a DGX's two storage
HCAs beside its eight compute rails, carry no collective traffic. Counting them raised the
expectation by a quarter to a half, so uploading ibstat (more evidence) turned a verified
all-reduce into an unverifiable one. A vendor who claims fewer rails than its nodes have is
still judged against the rails they have (one per GPU at most beyond the claim)."""

from __future__ import annotations

from scoring.evidence.registry import parse_text
from scoring.verification import NodeEvidence
from scoring.verification.network import verify_collective

try:
    from scoring_factories import fleet_claims
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import fleet_claims

H100 = "NVIDIA H100 80GB HBM3"


def _ibstat(ports: list[tuple[str, int]]) -> str:
    """ibstat's text for single-port ConnectX-7 cards, each (link layer, rate), all Active."""
    blocks = []
    for index, (layer, rate) in enumerate(ports):
        blocks.append(
            f"CA 'mlx5_{index}'\n\tCA type: MT4129\n\tNumber of ports: 1\n"
            f"\tFirmware version: 28.39.1002\n\tHardware version: 0\n"
            f"\tNode GUID: 0xa088c20300ad{index:04x}\n"
            f"\tSystem image GUID: 0xa088c20300ad{index:04x}\n\tPort 1:\n"
            f"\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: {rate}\n"
            f"\t\tBase lid: {index + 1}\n\t\tLMC: 0\n\t\tSM lid: 1\n"
            f"\t\tCapability mask: 0x2651e848\n\t\tPort GUID: 0xa088c20300ad{index:04x}\n"
            f"\t\tLink layer: {layer}"
        )
    return "\n".join(blocks) + "\n"


def all_reduce_log(
    hosts: list[str], peak: float, sizes: tuple[int, ...] = (2**29, 2**30, 2**31, 2**32, 2**33)
) -> str:
    """An nccl-tests all_reduce_perf log of 8 ranks per host, busbw rising to ``peak`` over
    the message ``sizes``."""
    ranks = len(hosts) * 8
    lines = [
        f"# nThread 1 nGpus 1 minBytes {sizes[0]} maxBytes {sizes[-1]} step: 2(factor) "
        "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    for rank in range(ranks):
        host, device = hosts[rank // 8], rank % 8
        lines.append(
            f"#  Rank {rank:2d} Group  0 Pid {1000 + device:6d} on {host:>10s} device "
            f"{device:2d} [0x{0x18 + device * 8:02x}] {H100}"
        )
    lines += [
        "NCCL version 2.21.5+cuda12.4",
        "#",
        "#       size         count      type   redop    root     time   algbw   busbw "
        "#wrong     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
        "            (us)  (GB/s)  (GB/s)       ",
    ]
    factor = 2 * (ranks - 1) / ranks
    for index, size in enumerate(sizes):
        busbw = peak * (0.8 + 0.2 * index / (len(sizes) - 1))
        algbw = busbw / factor
        time_us = size / algbw / 1e3
        lines.append(
            f"{size:12d} {size // 4:13d}     float     sum      -1 {time_us:8.1f} {algbw:7.2f} "
            f"{busbw:7.2f}      0 {time_us:8.1f} {algbw:7.2f} {busbw:7.2f}      0"
        )
    lines += ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {peak * 0.9:.2f}"]
    return "\n".join(lines) + "\n"


def _evidence(text: str, node: str, upload: int, source: str) -> NodeEvidence:
    parsed = parse_text(text)
    return NodeEvidence(node, upload, parsed.kind, parsed.metrics, source)


def _expected(claims, ports: list[tuple[str, int]] | None, peak: float = 380.0):
    hosts = [f"dgx{index:02d}" for index in range(claims.node_count)]
    evidence = [_evidence(all_reduce_log(hosts, peak), "dgx00", 1, "all_reduce.txt")]
    if ports is not None:
        evidence += [
            _evidence(_ibstat(ports), host, 10 + index, "ibstat.txt")
            for index, host in enumerate(hosts)
        ]
    check = verify_collective(claims, evidence)
    return (None if check.expected is None else check.expected.value_gbyte_s), check.item.status


COMPUTE = [("InfiniBand", 400)] * 8


def test_storage_hcas_and_bluefield_ethernet_do_not_raise_the_expectation():
    claims = fleet_claims(16)
    alone = _expected(claims, None)
    assert alone[1] == "verified"
    for extra in (
        [("Ethernet", 400)] * 4,  # DGX B200: two dual-port BlueField-3 on Ethernet
        [("InfiniBand", 400)] * 2 + [("Ethernet", 400)] * 2,  # DGX H100 with IB storage
    ):
        assert _expected(claims, COMPUTE + extra) == alone


def test_rails_the_vendor_did_not_claim_still_set_the_expectation():
    # Four rails claimed, eight compute rails Active: judged against the eight it has (the
    # run is then plausible and verifies them); on the claim alone the run is set aside, as
    # faster than four rails can carry.
    four = fleet_claims(16, nics_per_node=4)
    assert _expected(four, COMPUTE) == _expected(fleet_claims(16), None)
    assert _expected(four, None) == (None, "unverifiable")
