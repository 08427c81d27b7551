"""Failed and missing POC runs feed scoring: contradicted / unverifiable claims naming the run,
and knockouts where the plan makes the run mandatory (scoring/poc/, scoring/knockouts.py)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from scoring import poc
from scoring.poc import PlanSpec, PocEvidence, PocShortfall
from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.types import ScoringInputError

try:
    from scoring_factories import candidate, evaluation
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
BEFORE, AFTER = NOW + timedelta(days=1), NOW - timedelta(hours=1)
CJK = re.compile(r"[\u4e00-\u9fff]")
SPEC = PlanSpec("pretraining", 16, 8, node_count=2, all_nodes_max=2, sample_size=2)
NODES = ["gpu01", "gpu02"]
RUNS = poc.required_runs(SPEC, NODES)
FIO = "fio --output-format=json --filename={}/t.tmp"


def ev(node, kind, command="", source="f.txt", **metrics):
    return PocEvidence(node, 7, kind, metrics, source, command)


def fio_job(name, rw, bs):
    return {"name": name, "rw": rw, "bs_bytes": bs, "iodepth": 64, "numjobs": 1}


def full_evidence(node):
    """Everything one sampled node must show, each file passing."""
    return [
        ev(node, "nccl_tests", "all_reduce_perf -g 8", collective="all_reduce", wrong_total=0),
        ev(node, "dcgm_diag", "dcgmi diag -r 3 -j", overall="pass", level=3),
        ev(node, "nvidia_smi_query", "nvidia-smi -q"),
        ev(node, "nvidia_smi_list", "nvidia-smi -L"),
        ev(
            node,
            "fio",
            FIO.format("/data/nvme"),
            "fio-local-nvme.json",
            jobs=[
                fio_job("local-nvme-seq-read", "read", 1 << 20),
                fio_job("local-nvme-rand-read", "randread", 4096),
            ],
            errors=[],
        ),
    ]


def shared_fio(node="gpu01", **extra):
    jobs = [fio_job("shared-fs-seq-read", "read", 1 << 20)]
    jobs.append(fio_job("shared-fs-rand-read", "randread", 4096))
    return ev(node, "fio", FIO.format("/home/team"), "fio-shared-fs.json", jobs=jobs, **extra)


def multi_node(collective):
    return ev(
        "gpu01",
        "nccl_tests",
        f"mpirun -np 16 {collective}_perf",
        collective=collective,
        hosts=NODES,
        wrong_total=0,
    )


def perftest(a, b):
    return ev(a, "perftest", f"ib_write_bw -d mlx5_0 {b}", test="ib_write_bw")


EVERYTHING = (
    full_evidence("gpu01")
    + full_evidence("gpu02")
    + [shared_fio(), multi_node("all_reduce"), multi_node("alltoall"), perftest("gpu01", "gpu02")]
)


def covered(evidence, deadline=AFTER):
    return poc.coverage(
        RUNS, evidence, deadline=deadline, now=NOW, node_count=2, sampled=NODES
    ).as_dict()


def without(kinds_or_pred):
    return [e for e in EVERYTHING if not kinds_or_pred(e)]


def test_complete_evidence_covers_the_plan_and_gives_no_shortfall():
    stored = covered(EVERYTHING)
    assert stored["complete"], [r for r in stored["runs"] if r["status"] != poc.COVERED]
    assert poc.shortfalls(stored) == ()


def test_the_collectors_job_label_decides_local_or_shared_wherever_the_directory_lies():
    # /home/team is under no shared prefix: the label alone makes it the shared-FS run...
    assert poc.fio_target(shared_fio()) == "shared"
    # ...and a labelled local job stays local even under /shared.
    local = full_evidence("gpu01")[-1]
    assert poc.fio_target(replace(local, command=FIO.format("/shared"))) == "local"
    # Unlabelled jobs fall back on the path.
    plain = replace(
        shared_fio(), source="fio.json", metrics={"jobs": [fio_job("seq", "read", 1 << 20)]}
    )
    assert poc.fio_target(plain) == "local"
    assert poc.fio_target(replace(plain, command=FIO.format("/lustre/x"))) == "shared"


def test_missing_runs_are_pending_before_the_deadline_and_shortfalls_after():
    evidence = without(lambda e: e.kind == "fio" and poc.fio_target(e) == "local")
    assert poc.shortfalls(covered(evidence, deadline=BEFORE)) == ()
    found = poc.shortfalls(covered(evidence))
    assert {(s.run_key, s.reason) for s in found} == {
        (f"{kind}@{node}", poc.MISSING)
        for kind in (poc.FIO_LOCAL_SEQ, poc.FIO_LOCAL_RAND)
        for node in NODES
    }
    assert {s.item_key for s in found} == {"local_nvme"}
    assert found[0].explanation_en.endswith("missing at the deadline")
    assert CJK.search(found[0].explanation_zh)


@pytest.mark.parametrize(
    ("broken", "kind", "note", "code", "args"),
    [
        (
            ev("gpu02", "dcgm_diag", "dcgmi diag -r 3", "dcgmi-diag.txt", overall="fail", level=3),
            poc.DCGM_DIAG,
            "dcgmi diag reported fail",
            poc.NOTE_DCGM_FAIL,
            {},
        ),
        (
            ev("gpu02", "nccl_tests", "all_reduce_perf -g 8", "nccl.txt", wrong_total=3),
            poc.NCCL_ONE_NODE,
            "nccl-tests reported 3 wrong results",
            poc.NOTE_NCCL_WRONG,
            {"count": "3"},
        ),
        (
            replace(
                full_evidence("gpu02")[-1],
                source="fio.json",
                metrics={
                    **full_evidence("gpu02")[-1].metrics,
                    "errors": [{"job": "local-nvme-rand-read", "error": 5}],
                },
            ),
            poc.FIO_LOCAL_RAND,
            "fio jobs ended in an error (local-nvme-rand-read)",
            poc.NOTE_FIO_ERRORS,
            {"jobs": "local-nvme-rand-read"},
        ),
    ],
)
def test_a_run_whose_tool_reported_a_failure_fails_at_once(broken, kind, note, code, args):
    evidence = [e for e in EVERYTHING if not (e.node_name == "gpu02" and _same_run(e, broken))]
    stored = covered([*evidence, broken], deadline=BEFORE)
    found = [s for s in poc.shortfalls(stored) if s.kind == kind]
    assert len(found) == 1
    assert found[0].reason == poc.RUN_FAILED and found[0].note == note
    assert found[0].evidence_ref == f"gpu02: {broken.source} (upload 7)"
    # The note is stored as a code with its parts, and the shortfall keeps them as structure;
    # a coverage stored before the codes (the English note alone) reads back the same.
    run = next(r for r in stored["runs"] if r["kind"] == kind and r["status"] == poc.FAILED)
    assert (run["note_code"], run["note_args"]) == (code, args)
    shown = found[0].as_dict()
    assert (shown["note_code"], shown["note_args"]) == (code, args)
    assert shown["evidence"] == {"node": "gpu02", "file": broken.source, "upload_id": 7}
    assert poc.PocShortfall.from_dict(shown) == found[0]
    for r in stored["runs"]:
        r.pop("note_code"), r.pop("note_args")
    assert [s for s in poc.shortfalls(stored) if s.kind == kind] == found
    assert found[0].item_status == "contradicted"
    # A failed diag contradicts no checklist claim (the GPUs are the ones claimed): the
    # must-have poc_health_failed carries it; the other failures contradict their item.
    assert found[0].item_key == ("" if kind == poc.DCGM_DIAG else poc.RUN_ITEMS[kind])


def _same_run(e, broken):
    if e.kind != broken.kind:
        return False
    return e.kind != "nccl_tests" or e.metrics.get("hosts") is None


def test_missing_runs_turn_their_claims_unverifiable_and_name_the_run():
    evidence = without(lambda e: e.kind == "fio" and poc.fio_target(e) == "local")
    found = poc.shortfalls(covered(evidence))
    base = candidate(answers={"local_nvme": "verified", "fabric": "verified"})
    applied = poc.candidate_with_poc(base, found)
    assert applied.answers["local_nvme"] == "unverifiable"
    assert applied.answers["fabric"] == "verified"
    assert applied.poc_shortfalls == found
    ref = applied.measured.evidence_refs["local_nvme"]
    assert "POC run fio sequential, local NVMe on gpu01: missing at the deadline" in ref


def test_missing_counts_below_neutral_and_failed_below_missing():
    """Never neutral: a missing run's claim scores below an unverified claim (the neutral
    state before the deadline), a failed one below that."""
    rubric = load_rubric()
    spec = evaluation()
    neutral = candidate(answers={"local_nvme": "claimed", "fabric": "claimed"})
    missing = poc.candidate_with_poc(
        neutral,
        poc.shortfalls(
            covered(without(lambda e: e.kind == "fio" and poc.fio_target(e) == "local"))
        ),
    )
    bad_fio = replace(
        full_evidence("gpu01")[-1],
        metrics={**full_evidence("gpu01")[-1].metrics, "errors": [{"job": "x", "error": 5}]},
    )
    failed = poc.candidate_with_poc(
        neutral,
        poc.shortfalls(
            covered([e for e in EVERYTHING if e != full_evidence("gpu01")[-1]] + [bad_fio])
        ),
    )
    scores = [score_candidate(c, spec, rubric) for c in (neutral, missing, failed)]
    assert scores[0].total > scores[1].total > scores[2].total
    lines = [
        c
        for d in scores[1].dimensions
        for c in d.contributions
        if c.inputs.get("answer.local_nvme") == "unverifiable"
    ]
    assert lines and all("fio sequential, local NVMe" in (c.evidence_ref or "") for c in lines)
    assert not any(k.code.startswith("poc_") for k in scores[1].knockouts)


def test_a_contradiction_from_elsewhere_stays():
    found = poc.shortfalls(covered(without(lambda e: e.kind == "fio")))
    applied = poc.candidate_with_poc(candidate(answers={"local_nvme": "contradicted"}), found)
    assert applied.answers["local_nvme"] == "contradicted"
    # An item nobody answered stays unanswered (a missing run never raises a status; review 3),
    # its reference naming the missing run.
    assert applied.answers["distributed_storage"] == "unanswered"
    assert "missing at the deadline" in applied.measured.evidence_refs["distributed_storage"]
    claimed = poc.candidate_with_poc(candidate(answers={"distributed_storage": "claimed"}), found)
    assert claimed.answers["distributed_storage"] == "unverifiable"


def _knockouts(evidence, deadline=AFTER):
    found = poc.shortfalls(covered(evidence, deadline=deadline))
    result = score_candidate(
        poc.candidate_with_poc(candidate(), found), evaluation(), load_rubric()
    )
    for k in result.knockouts:
        assert k.reason_en and CJK.search(k.reason_zh)
    return {k.code: k for k in result.knockouts}


def test_a_multi_node_evaluation_without_fabric_proof_is_knocked_out_after_the_deadline():
    evidence = without(lambda e: e.kind == "nccl_tests" and e.metrics.get("hosts"))
    assert "poc_fabric_unproven" not in _knockouts(evidence, deadline=BEFORE)
    knockout = _knockouts(evidence)["poc_fabric_unproven"]
    assert "multi-node all_reduce (nccl-tests): missing at the deadline" in knockout.reason_en
    assert "multi-node alltoall" in knockout.reason_en
    assert knockout.evidence_ref == (
        f"POC plan: {poc.NCCL_MULTI_ALL_REDUCE}, {poc.NCCL_MULTI_ALLTOALL}"
    )


def test_a_multi_node_run_with_wrong_results_knocks_out_at_once():
    bad = replace(multi_node("all_reduce"), metrics={**multi_node("all_reduce").metrics})
    bad = replace(bad, metrics={**bad.metrics, "wrong_total": 12}, source="mn.txt")
    evidence = [e for e in EVERYTHING if e != multi_node("all_reduce")] + [bad]
    knockout = _knockouts(evidence, deadline=BEFORE)["poc_fabric_unproven"]
    assert "failed (nccl-tests reported 12 wrong results)" in knockout.reason_en
    assert knockout.evidence_ref == "gpu01: mn.txt (upload 7)"


def test_a_failed_health_diag_knocks_out_a_missing_one_does_not():
    failed = ev("gpu01", "dcgm_diag", "dcgmi diag -r 3", "d.txt", overall="fail", level=3)
    evidence = [e for e in EVERYTHING if not (e.kind == "dcgm_diag" and e.node_name == "gpu01")]
    assert "poc_health_failed" in _knockouts([*evidence, failed], deadline=BEFORE)
    assert _knockouts(evidence) == {}  # missing: gpu_match unverifiable, no knockout
    # A single-node plan has no fabric runs, so nothing to knock out for them.
    one = poc.required_runs(replace(SPEC, workload_profile="inference", required_total_gpus=8))
    assert not {r.kind for r in one} & poc.FABRIC_PROOF_RUNS


def test_a_diag_that_skipped_every_test_proves_nothing_but_is_no_health_failure():
    skipped = ev("gpu01", "dcgm_diag", "dcgmi diag -r 3", "d.txt", overall="skip", level=3)
    evidence = [e for e in EVERYTHING if not (e.kind == "dcgm_diag" and e.node_name == "gpu01")]
    found = poc.shortfalls(covered([*evidence, skipped], deadline=BEFORE))
    assert [(s.kind, s.reason, s.item_key, s.item_status) for s in found] == [
        (poc.DCGM_DIAG, poc.UNPROVEN, "gpu_match", "unverifiable")
    ]
    assert found[0].explanation_en == (
        "POC run dcgmi diag -r 3 on gpu01: checked nothing (dcgmi diag reported skip)"
    )
    assert _knockouts([*evidence, skipped], deadline=BEFORE) == {}


def test_a_diag_cut_before_its_result_covers_no_run_and_fails_no_health_check():
    """A dcgmi diag table cut before its end (overall "incomplete") says nothing of the tests
    past the cut: it covers no run (it used to, like a pass) and is no health failure either."""
    cut = ev("gpu01", "dcgm_diag", "dcgmi diag -r 3", "d.txt", overall="incomplete", level=3)
    evidence = [e for e in EVERYTHING if not (e.kind == "dcgm_diag" and e.node_name == "gpu01")]
    found = poc.shortfalls(covered([*evidence, cut], deadline=BEFORE))
    assert [(s.kind, s.reason, s.note_code, s.item_status) for s in found] == [
        (poc.DCGM_DIAG, poc.UNPROVEN, poc.NOTE_DCGM_INCOMPLETE, "unverifiable")
    ]
    assert "dcgmi diag output ends before its result" in found[0].explanation_en
    assert "输出在结果之前中断" in found[0].explanation_zh
    assert _knockouts([*evidence, cut], deadline=BEFORE) == {}


def test_bad_input_is_refused_clearly():
    with pytest.raises(poc.PocInputError, match="unknown POC run kind"):
        PocShortfall("x", "no_such_run", poc.MISSING)
    with pytest.raises(poc.PocInputError, match="one of missing, failed, unproven"):
        PocShortfall(poc.DCGM_DIAG, poc.DCGM_DIAG, "late")
    with pytest.raises(poc.PocInputError, match="mapping"):
        poc.shortfalls(["not", "a", "coverage"])
    with pytest.raises(ScoringInputError, match="PocShortfall"):
        replace(candidate(), poc_shortfalls=("dcgm",))
    # Run kinds of another plan version are skipped, not guessed at.
    assert poc.shortfalls({"runs": [{"kind": "old_kind", "status": "failed"}]}) == ()


def test_a_run_on_another_gpu_proves_nothing_and_stays_out_of_the_fleet_figures():
    """An nccl-tests run whose device lines name another GPU than the offering's (here
    A100-SXM4-40GB for an A100-SXM4-80GB offering) covers no required run and its bus
    bandwidth never enters the fleet figures; a run naming only "A100" is not set aside."""
    from scoring.reference import claimed_gpu_facts

    claimed = poc.ClaimedGpu(claimed_gpu_facts("NVIDIA A100-SXM4-80GB", 80, "sxm"), "A100 80GB")

    def one_node(node, names, busbw):
        return ev(
            node,
            "nccl_tests",
            "all_reduce_perf -g 8",
            collective="all_reduce",
            wrong_total=0,
            gpu_names=names,
            peak_busbw_gbyte_s=busbw,
        )

    foreign = one_node("gpu01", ["NVIDIA A100-SXM4-40GB"] * 8, 900.0)
    plain = one_node("gpu02", ["NVIDIA A100"] * 8, 230.0)
    rest = [e for e in EVERYTHING if e.kind != "nccl_tests"]
    result = poc.coverage(
        RUNS,
        [*rest, foreign, plain],
        deadline=AFTER,
        now=NOW,
        node_count=2,
        sampled=NODES,
        claimed_gpu=claimed,
    )
    by_node = {r.run.node: r for r in result.runs if r.run.kind == poc.NCCL_ONE_NODE}
    # Set aside: the run is still wanted (missing at the deadline), its note names the GPU.
    assert by_node["gpu01"].status == poc.FAILED and not by_node["gpu01"].evidence
    assert by_node["gpu01"].note_code == poc.NOTE_FOREIGN_GPU
    assert dict(by_node["gpu01"].note_args) == {
        "gpu": "NVIDIA A100-SXM4-40GB",
        "claimed": "A100 80GB",
    }
    assert by_node["gpu02"].status == poc.COVERED
    before = poc.coverage(
        RUNS, [foreign], deadline=BEFORE, now=NOW, node_count=2, sampled=NODES, claimed_gpu=claimed
    )
    pending = next(
        r for r in before.runs if r.run.kind == poc.NCCL_ONE_NODE and r.run.node == "gpu01"
    )
    assert pending.status == poc.PENDING and pending.note_code == poc.NOTE_FOREIGN_GPU
    assert result.fleet["nccl_busbw_gbyte_s"] == {
        "nodes": 1,
        "p5": 230.0,
        "median": 230.0,
        "worst": 230.0,
    }
    [missing] = [s for s in poc.shortfalls(result) if s.run_key == by_node["gpu01"].run.key]
    assert missing.reason == poc.MISSING  # unverifiable, never contradicted
    assert "ran on NVIDIA A100-SXM4-40GB, not the claimed A100 80GB" in poc.note_en(
        by_node["gpu01"].note_code, by_node["gpu01"].note_args
    )
