"""Benchmark of the scoring core: prints the figures of the scoring issue's performance targets.

Run: ``python bench/scoring.py`` (from the repository root). Exits 1 when a target is missed.

Targets (issue #15), measured in one run because the machine is shared and noisy; every
figure is printed next to its floor measured in the same run:
- ranking 1,000 candidates (cold: the contribution memo emptied before each ranking) stays
  under 50 ms median and costs at most 20x a plain-Python weighted sum of six numbers for each
  of the same 1,000 candidates;
- growth is linear to 10,000 candidates: ranking 10,000 costs at most 12.5x ranking 1,000
  (a growth exponent of at most about 1.1);
- robustness (flip thresholds and 1,000-draw rank stability) of 500 qualified candidates costs
  at most 10x a numpy floor: the bare numpy weighted sums and argmax of the same draws;
- rank stability with 1,000 weight draws over 50 candidates stays under 250 ms median;
- AHP of a 6x6 matrix stays under 1 ms median.

Printed beside them, not targets: the share of a ranking spent on its TCO figures, the exact
TCOs, and the ranking of 1,000 candidates built afresh before each ranking, as a cold portal
view builds its inputs (the timed rankings of the target reuse one set of inputs).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# One BLAS thread, before numpy loads: on a shared 2-core machine a threaded matrix product
# (the robustness floor) waits for a second core now and then and its median swings by 30x,
# which flatters the ratio; the measured side gets the same single thread.
os.environ.update(
    dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1")
)

import numpy as np

from scoring.dimensions import clear_memo
from scoring.ranking import rank
from scoring.robustness import rank_stability, robustness
from scoring.rubric import CURRENT_RUBRIC_VERSION, load_rubric
from scoring.tco import TcoPlan, compute_tco, pending_tcos
from scoring.types import (
    CHECKLIST_KEYS,
    DIMENSIONS,
    ITEM_STATUSES,
    CandidateInput,
    EvaluationSpec,
    MeasuredFacts,
    OfferingFacts,
    Price,
    VendorFacts,
)
from scoring.weights import ahp

RANK_RATIO_MAX = 20.0
GROWTH_RATIO_MAX = 12.5
ROBUSTNESS_RATIO_MAX = 10.0
RANK_MEDIAN_MAX_S = 0.050
STABILITY_MEDIAN_MAX_S = 0.250
AHP_MEDIAN_MAX_S = 0.001

GPUS = (
    ("NVIDIA H100 SXM5 80GB", 80, "sxm"),
    ("NVIDIA A100-SXM4-80GB", 80, "sxm"),
    ("NVIDIA H800 80GB", 80, "sxm"),
    ("NVIDIA L40S", 48, "pcie"),
    ("NVIDIA H20 96GB", 96, "sxm"),
)


def _money(rng: random.Random, low: int, high: int) -> Decimal:
    return Decimal(rng.randrange(low * 100, high * 100)) / 100


def make_candidate(rng: random.Random, candidate_id: int) -> CandidateInput:
    """A random but realistic candidate: discrete catalogue values, continuous measurements."""
    model, memory, form_factor = rng.choice(GPUS)
    fabric = rng.choice(("infiniband", "infiniband", "roce", "ethernet", "none"))
    offering = OfferingFacts(
        delivery_form=rng.choice(
            ("bare_metal", "bare_metal", "passthrough_vm", "vgpu", "container")
        ),
        gpu_model=model,
        gpus_per_node=rng.choice((1, 4, 8, 8, 8)),
        gpu_memory_gib=memory,
        currency="CNY",
        prices=(
            Price("hourly", _money(rng, 5, 40)),
            Price("monthly", _money(rng, 3000, 20000)),
            Price("yearly", _money(rng, 30000, 200000)),
            Price("spot", _money(rng, 2, 20)),
        ),
        gpu_form_factor=form_factor,
        nvlink_topology=rng.choice(("full_mesh", "grouped", "none")),
        fabric=fabric,
        fabric_rate_gbit_s=0 if fabric == "none" else rng.choice((100, 200, 400)),
        nics_per_node=0 if fabric == "none" else rng.choice((1, 2, 4, 8)),
        oversubscription_ratio=rng.choice((Decimal(1), Decimal("1.5"), Decimal(2))),
        cross_rack_latency_us=rng.choice((None, Decimal("1.5"), Decimal(3), Decimal(8))),
        nvme_capacity_tib=rng.choice((Decimal("3.84"), Decimal("7.68"), Decimal("15.36"))),
        nvme_read_gbyte_s=rng.choice((None, Decimal("3.5"), Decimal("6.8"), Decimal(12))),
        nvme_write_gbyte_s=rng.choice((None, Decimal("2.1"), Decimal("4.0"))),
        distributed_fs=rng.choice(("", "Lustre", "GPFS")),
        distributed_fs_bandwidth_gbyte_s=rng.choice((None, Decimal(20), Decimal(80))),
        data_preloading=rng.random() < 0.5,
        nccl_tuning_control=rng.random() < 0.5,
        monitors_pcie_errors=rng.random() < 0.7,
        monitors_ecc=rng.random() < 0.7,
        monitors_thermal=rng.random() < 0.7,
        oob_management=rng.random() < 0.5,
        encryption_at_rest=rng.random() < 0.7,
        encryption_in_transit=rng.random() < 0.7,
        mfa=rng.random() < 0.7,
        audit_logs=rng.random() < 0.7,
        network_isolation=rng.choice(("none", "vlan", "vxlan", "dedicated")),
        data_wipe_policy=rng.choice(("none", "logical", "certified")),
        spot_preemption_risk_pct=rng.choice((Decimal(5), Decimal(10), Decimal(20))),
        storage_cost_month=_money(rng, 0, 5000),
        network_egress_cost_month=_money(rng, 0, 2000),
        support_cost_month=_money(rng, 0, 3000),
        licence_cost_gpu_month=rng.choice((Decimal(0), Decimal(150))),
        setup_fee=_money(rng, 0, 5000),
        setup_days=rng.choice((0, 1, 2)),
        sla_availability_pct=rng.choice((Decimal("99.5"), Decimal("99.9"), Decimal("99.95"))),
        sla_response_time_min=rng.choice((15, 30, 60, 240)),
        sla_credit_pct=rng.choice((Decimal(0), Decimal(10), Decimal(25))),
        hardware_replacement_hours=rng.choice((None, 4, 24, 72)),
        support_24x7=rng.random() < 0.6,
        support_tier=rng.choice(("dedicated_team", "named_contact", "ticket_queue")),
        poc_window_days=rng.choice((0, 3, 7, 14)),
    )
    measured = MeasuredFacts(
        busbw_fraction=rng.uniform(0.55, 1.0),
        peak_busbw_gbyte_s=rng.uniform(150.0, 480.0),
        expected_busbw_gbyte_s=480.0,
        ecc_uncorrected=rng.choice((0, 0, 0, 1)),
        xid_errors=rng.choice((0, 0, 1, 3)),
        dcgm_overall=rng.choice(("pass", "pass", "warn", "fail")),
        nvme_read_mbyte_s=rng.uniform(2000.0, 13000.0),
        nvme_write_mbyte_s=rng.uniform(1000.0, 6000.0),
        ib_rate_gbit_s_min=rng.choice((None, 200.0, 400.0)),
        evidence_refs={"busbw_fraction": f"upload {candidate_id} · nccl_tests all_reduce.txt"},
    )
    return CandidateInput(
        candidate_id=candidate_id,
        label=f"candidate {candidate_id}",
        vendor=VendorFacts(
            name=f"vendor {candidate_id % 37}",
            mlps_level=rng.choice((0, 2, 3)),
            xinchuang=rng.random() < 0.3,
            iso27001=rng.random() < 0.5,
        ),
        offering=offering,
        node_count=rng.choice((1, 2, 4, 16)),
        answers={key: rng.choice(ITEM_STATUSES) for key in CHECKLIST_KEYS},
        measured=measured,
    )


def timings(
    function: Callable[[], Any], repeat: int, setup: Callable[[], Any] | None = None
) -> list[float]:
    """Seconds per call of ``function``, ``repeat`` times (``setup`` runs untimed before each)."""
    result = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        function()
        result.append(time.perf_counter() - start)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21, help="timed repetitions per figure")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rubric", default=CURRENT_RUBRIC_VERSION, help="rubric version (default: the current)"
    )
    args = parser.parse_args(argv)

    rubric = load_rubric(args.rubric)
    print(f"rubric v{rubric.version}")
    rng = random.Random(args.seed)
    many = [make_candidate(rng, i) for i in range(1, 10_001)]
    candidates = many[:1000]
    evaluation = EvaluationSpec(
        workload_profile="pretraining",
        required_total_gpus=8,
        required_gpu_memory_gib=48,
        duration_days=90,
        expected_idle_days=10,
        budget_total=Decimal(5_000_000),
    )
    ranking = rank(candidates, evaluation, rubric)
    weights = dict(ranking.weights)
    # The fixtures built above live for the whole run; freezing them keeps the garbage
    # collector from rescanning them inside every timed call.
    gc.collect()
    gc.freeze()
    rows = [tuple(r.score(d) for d in DIMENSIONS) for r in ranking.results]
    weight_row = tuple(weights[d] for d in DIMENSIONS)

    def plain() -> list[float]:
        return [sum(w * s for w, s in zip(weight_row, row, strict=True)) for row in rows]

    # The contribution memo is emptied before each timed ranking so that only sharing between
    # the candidates of one ranking counts, as it would in the portal.
    # Interleaved, so both figures of the ratio see the same load on a shared machine.
    rank_times: list[float] = []
    plain_times: list[float] = []
    # Not targets, printed so the ratio's floor is read honestly: the share of a ranking spent
    # on the TCO figures its scores read (float columns with an exact fallback, pending_tcos),
    # and what the 1,000 exact Decimal TCOs cost (built when a result's TCO is first read:
    # by the money a page shows, a report, an export or a pickled read model).
    tco_times: list[float] = []
    exact_times: list[float] = []

    def exact_tcos() -> list[Any]:
        plan = TcoPlan(evaluation)
        return [compute_tco(c, evaluation, rubric, plan) for c in candidates if c.offering.prices]

    for _ in range(args.repeat):
        rank_times += timings(
            lambda: rank(candidates, evaluation, rubric), 1, lambda: clear_memo(rubric)
        )
        plain_times += timings(plain, 20)
        tco_times += timings(lambda: pending_tcos(candidates, evaluation, rubric), 1)
        exact_times += timings(exact_tcos, 1)
    # Not a target: the timed rankings above reuse one set of inputs (their Decimals keep the
    # hashes the first ranking computed, their objects stay warm in the caches); a cold portal
    # view builds its inputs afresh from database rows. The same candidates rebuilt before
    # each ranking (untimed; the building is printed).
    fresh_times: list[float] = []
    build_times: list[float] = []
    for _ in range(max(3, args.repeat // 3)):
        start = time.perf_counter()
        fresh_rng = random.Random(args.seed)
        fresh = [make_candidate(fresh_rng, i) for i in range(1, 1001)]
        build_times.append(time.perf_counter() - start)
        fresh_times += timings(
            lambda fresh=fresh: rank(fresh, evaluation, rubric), 1, lambda: clear_memo(rubric)
        )
        del fresh
    fifty = [r for r in ranking.results if not r.disqualified][:50]
    if len(fifty) < 50:
        fifty = list(ranking.results[:50])
    stability_times = timings(
        lambda: rank_stability(fifty, weights, draws=1000, perturbation_pct=20, seed=1), args.repeat
    )
    # Linear growth: 10,000 candidates against 1,000, interleaved (fewer repetitions: slow).
    small_times: list[float] = []
    large_times: list[float] = []
    for _ in range(max(3, args.repeat // 4)):
        small_times += timings(
            lambda: rank(candidates, evaluation, rubric), 1, lambda: clear_memo(rubric)
        )
        large_times += timings(
            lambda: rank(many, evaluation, rubric), 1, lambda: clear_memo(rubric)
        )
    growth = statistics.median(large_times) / statistics.median(small_times)

    # Robustness of 500 qualified candidates against a numpy floor over the same draws.
    big = rank(many, evaluation, rubric)
    five_hundred = list(big.qualified[:500])
    if len(five_hundred) < 500:
        five_hundred = [r for r in big.results if not r.disqualified][:500]
    draws = np.random.default_rng(1).uniform(0.8, 1.2, size=(1000, 6)) * np.array(weight_row)
    score_matrix = np.array([[r.score(d) for r in five_hundred] for d in DIMENSIONS])

    def floor() -> Any:
        return (draws @ score_matrix).argmax(axis=1)

    robust_times: list[float] = []
    floor_times: list[float] = []
    for _ in range(args.repeat):
        robust_times += timings(
            lambda: robustness(five_hundred, weights, draws=1000, perturbation_pct=20, seed=1), 1
        )
        floor_times += timings(floor, 5)
    robust_ratio = statistics.median(robust_times) / statistics.median(floor_times)

    matrix = [
        [1, 3, 5, 7, 3, 5],
        [1 / 3, 1, 3, 5, 1, 3],
        [1 / 5, 1 / 3, 1, 3, 1 / 3, 1],
        [1 / 7, 1 / 5, 1 / 3, 1, 1 / 5, 1 / 3],
        [1 / 3, 1, 3, 5, 1, 3],
        [1 / 5, 1 / 3, 1, 3, 1 / 3, 1],
    ]
    ahp_times = timings(lambda: ahp(matrix), args.repeat * 20)

    rank_median = statistics.median(rank_times)
    plain_median = statistics.median(plain_times)
    ratio = rank_median / plain_median
    stability_median = statistics.median(stability_times)
    ahp_median = statistics.median(ahp_times)
    checks = [
        ("rank 1000 / plain weighted sum 1000 (ratio)", ratio, RANK_RATIO_MAX, f"{ratio:.1f}×"),
        ("rank 10000 / rank 1000 (growth ratio)", growth, GROWTH_RATIO_MAX, f"{growth:.2f}×"),
        (
            f"robustness {len(five_hundred)} candidates / numpy floor (ratio)",
            robust_ratio,
            ROBUSTNESS_RATIO_MAX,
            f"{robust_ratio:.1f}×",
        ),
        (
            "rank 1000 candidates, median",
            rank_median,
            RANK_MEDIAN_MAX_S,
            f"{rank_median * 1e3:.2f} ms",
        ),
        (
            "rank stability 1000 draws × 50 candidates, median",
            stability_median,
            STABILITY_MEDIAN_MAX_S,
            f"{stability_median * 1e3:.2f} ms",
        ),
        ("AHP 6×6, median", ahp_median, AHP_MEDIAN_MAX_S, f"{ahp_median * 1e3:.3f} ms"),
    ]
    print(f"plain weighted sum of six numbers × 1000, median: {plain_median * 1e3:.3f} ms")
    print(f"rank 1000 candidates, min: {min(rank_times) * 1e3:.2f} ms")
    tco_median = statistics.median(tco_times)
    print(
        f"  of which the 1000 TCO figures, median: {tco_median * 1e3:.2f} ms "
        f"({tco_median / plain_median:.1f}× the plain sum; not a target, for reading the ratio)"
    )
    exact_median = statistics.median(exact_times)
    print(
        f"the 1000 exact TCOs (built when results' TCOs are read), median: "
        f"{exact_median * 1e3:.2f} ms ({exact_median / plain_median:.1f}× the plain sum)"
    )
    fresh_median = statistics.median(fresh_times)
    print(
        f"rank 1000 candidates built afresh before each ranking (as a cold portal view "
        f"builds them), median: {fresh_median * 1e3:.2f} ms "
        f"({fresh_median / plain_median:.1f}× the plain sum; not a target); building them "
        f"(make_candidate, untimed above), median: "
        f"{statistics.median(build_times) * 1e3:.1f} ms"
    )
    print(f"rank 10000 candidates, median: {statistics.median(large_times) * 1e3:.1f} ms")
    print(
        f"robustness {len(five_hundred)} candidates, median: "
        f"{statistics.median(robust_times) * 1e3:.2f} ms; numpy floor (1000 draws × "
        f"{len(five_hundred)} weighted sums + argmax), median: "
        f"{statistics.median(floor_times) * 1e3:.3f} ms"
    )
    failed = 0
    for name, value, limit, shown in checks:
        ok = value <= limit
        failed += not ok
        target = f"{limit:g}×" if "ratio" in name else f"{limit * 1e3:g} ms"
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {shown} (target ≤ {target})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
