"""POC plan derivation, coverage, fleet sampling and summaries (scoring/poc/, no database)."""

from datetime import UTC, datetime, timedelta

import pytest

from scoring import poc
from scoring.poc import PlanSpec, PocEvidence

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
NODES = [f"gpu{i:02d}" for i in range(1, 17)]


def spec(**kw):
    base = dict(
        workload_profile="pretraining",
        required_total_gpus=64,
        gpus_per_node=8,
        node_count=16,
        all_nodes_max=4,
        sample_size=3,
    )
    return PlanSpec(**{**base, **kw})


def ev(node, kind, command="", source="f.txt", upload=1, **metrics):
    return PocEvidence(node, upload, kind, metrics, source, command)


def test_single_node_inference_has_no_multi_node_runs():
    one = spec(workload_profile="inference", required_total_gpus=8, node_count=1)
    runs = poc.required_runs(one)
    kinds = {r.kind for r in runs}
    assert poc.NCCL_MULTI_ALL_REDUCE not in kinds and poc.IB_WRITE_BW not in kinds
    assert kinds == {
        poc.NCCL_ONE_NODE,
        poc.DCGM_DIAG,
        poc.FIO_LOCAL_SEQ,
        poc.FIO_LOCAL_RAND,
        poc.FIO_SHARED_SEQ,
        poc.FIO_SHARED_RAND,
        poc.NVIDIA_SMI_Q,
        poc.INVENTORY,
    }


def test_multi_node_plan_lists_collectives_pairs_and_per_node_runs():
    sampled = ["a", "b", "c"]
    runs = poc.required_runs(spec(), sampled)
    multi = [r for r in runs if r.kind == poc.NCCL_MULTI_ALLTOALL]
    assert len(multi) == 1 and multi[0].min_nodes == 4
    pairs = [r.peers for r in runs if r.kind == poc.IB_WRITE_BW]
    assert pairs == [("a", "b"), ("b", "c"), ("c", "a")]
    assert [r.node for r in runs if r.kind == poc.DCGM_DIAG] == sampled
    assert len({r.key for r in runs}) == len(runs)


def test_span_is_at_least_two_and_at_most_the_candidates_nodes():
    assert poc.multi_node_span(spec(all_nodes_max=0)) == 2
    assert poc.multi_node_span(spec(node_count=3, all_nodes_max=64)) == 3
    # Inference that fits one node: no multi-node runs even with many nodes.
    assert not poc.is_multi_node(spec(workload_profile="inference", required_total_gpus=8))
    assert poc.is_multi_node(spec(workload_profile="inference", required_total_gpus=9))


def test_sampling_is_a_pure_function_of_seed_and_names():
    first = poc.sample_nodes(42, NODES, 4)
    assert first == poc.sample_nodes(42, list(reversed(NODES)), 4)
    assert len(first) == 4 and set(first) <= set(NODES)
    others = {tuple(poc.sample_nodes(seed, NODES, 4)) for seed in range(20)}
    assert len(others) > 10  # the seed really chooses
    assert poc.sample_nodes(1, ["x", "y"], 5) == ["x", "y"]


def test_coverage_names_upload_and_node_and_fails_missing_runs_after_deadline():
    runs = poc.required_runs(spec(workload_profile="inference", required_total_gpus=8), ["a"])
    evidence = [
        ev(
            "a",
            "nccl_tests",
            "all_reduce_perf -b 8 -e 1G -g 8",
            collective="all_reduce",
            hosts=["a"],
            peak_busbw_gbyte_s=180.0,
            upload=7,
        ),
        ev("a", "dcgm_diag", "dcgmi diag -r 3", level=3, overall="pass"),
        ev("b", "nvidia_smi_list", "nvidia-smi -L"),  # not the sampled node
        ev("a", "fio", "fio --filename=/nvme/x --rw=read", jobs=[{"rw": "read"}]),
        ev("a", "fio", "fio --filename=/lustre/p/x", jobs=[{"rw": "randread"}]),
    ]
    before = poc.coverage(runs, evidence, deadline=NOW + timedelta(days=1), now=NOW)
    status = {r.run.kind: r for r in before.runs}
    assert status[poc.NCCL_ONE_NODE].status == poc.COVERED
    assert status[poc.NCCL_ONE_NODE].evidence[0].upload_id == 7
    assert status[poc.FIO_LOCAL_SEQ].status == poc.COVERED
    assert status[poc.FIO_SHARED_RAND].status == poc.COVERED
    assert status[poc.FIO_LOCAL_RAND].status == poc.PENDING
    assert status[poc.INVENTORY].status == poc.PENDING
    after = poc.coverage(runs, evidence, deadline=NOW - timedelta(seconds=1), now=NOW)
    assert after.count(poc.PENDING) == 0
    assert {r.run.kind for r in after.runs if r.status == poc.FAILED} == {
        poc.FIO_LOCAL_RAND,
        poc.FIO_SHARED_SEQ,
        poc.NVIDIA_SMI_Q,
        poc.INVENTORY,
    }
    assert not after.complete and after.as_dict()["failed"] == 4


def test_wrong_variants_do_not_satisfy_runs():
    runs = poc.required_runs(spec(all_nodes_max=2), ["a", "b"])
    evidence = [
        ev("a", "dcgm_diag", "dcgmi diag -r 1", level=1, overall="pass"),  # level 1 only
        ev("b", "dcgm_diag", "dcgmi diag -r 3", level=3, overall="fail"),  # ran, failed
        ev("a", "nccl_tests", "alltoall_perf", collective="alltoall", hosts=["a"]),  # 1 node
        ev("a", "nccl_tests", "all_reduce_perf", collective="all_reduce", hosts=["a", "b"]),
        ev("a", "perftest", "ib_write_bw -d mlx5_0 c", test="ib_write_bw"),  # peer not b
        ev("b", "perftest", "ib_write_bw a", test="ib_write_bw", bw_avg_gbit_s=390.0),
    ]
    cov = poc.coverage(runs, evidence, deadline=None, now=NOW)
    by_key = {r.run.key: r for r in cov.runs}
    assert by_key["dcgm_diag_r3@a"].status == poc.PENDING
    assert by_key["dcgm_diag_r3@b"].status == poc.FAILED
    assert "fail" in by_key["dcgm_diag_r3@b"].note
    assert by_key[poc.NCCL_MULTI_ALLTOALL].status == poc.PENDING
    assert by_key[poc.NCCL_MULTI_ALL_REDUCE].status == poc.COVERED
    assert by_key["nccl_all_reduce_one_node@a"].status == poc.PENDING  # spanned 2 nodes
    assert by_key["ib_write_bw_pair@a~b"].status == poc.COVERED
    assert by_key["ib_write_bw_pair@a~b"].evidence[0].node_name == "b"


def test_evidence_from_report_keeps_the_command_and_skips_failed_files():
    report = [
        {"file": "fio.json", "kind": "fio", "ok": True, "command": "fio --rw=read", "metrics": {}},
        {"file": "x", "kind": "dcgm_diag", "ok": False, "metrics": {}},
    ]
    found = poc.evidence_from_report(report, node_name="n1", upload_id=3)
    assert [(e.kind, e.command, e.node_name) for e in found] == [("fio", "fio --rw=read", "n1")]


def test_fleet_is_p5_and_median_never_the_best_node():
    evidence = [
        ev(
            f"n{i}",
            "nccl_tests",
            "all_reduce_perf",
            collective="all_reduce",
            hosts=[f"n{i}"],
            peak_busbw_gbyte_s=value,
        )
        for i, value in enumerate([100.0, 180.0, 182.0, 184.0, 400.0])
    ]
    summary = poc.fleet_figures(evidence)["nccl_busbw_gbyte_s"]
    assert summary["nodes"] == 5
    assert summary["median"] == 182.0
    assert summary["p5"] == pytest.approx(116.0)
    assert summary["worst"] == 100.0
    assert 400.0 not in summary.values()


def test_percentile_rejects_no_values():
    with pytest.raises(ValueError):
        poc.percentile([], 5)
    assert poc.fleet_summary({})["p5"] is None


def test_a_stored_coverage_turns_pending_into_failed_at_the_deadline():
    runs = poc.required_runs(spec(node_count=1, workload_profile="inference"), ["a"])
    evidence = [ev("a", "nvidia_smi_list", "nvidia-smi -L")]
    deadline = NOW + timedelta(hours=1)
    stored = poc.coverage(runs, evidence, deadline=deadline, now=NOW).as_dict()
    assert stored["pending"] == len(runs) - 1
    same = poc.coverage_at(stored, deadline=deadline, now=NOW)
    assert same["pending"] == stored["pending"] and not same["deadline_passed"]
    late = poc.coverage_at(stored, deadline=deadline, now=deadline)
    assert late["pending"] == 0 and late["failed"] == len(runs) - 1 and late["covered"] == 1
    assert late["deadline_passed"] and not late["complete"]
    live = poc.coverage(runs, evidence, deadline=deadline, now=deadline).as_dict()
    assert [r["status"] for r in late["runs"]] == [r["status"] for r in live["runs"]]


def test_the_fleet_counts_only_sampled_nodes_when_there_is_a_sample():
    evidence = [
        ev(
            node,
            "nccl_tests",
            "all_reduce_perf",
            collective="all_reduce",
            hosts=[node],
            peak_busbw_gbyte_s=value,
        )
        for node, value in (("a", 150.0), ("b", 160.0), ("golden", 240.0))
    ]
    runs = poc.required_runs(spec(node_count=3), ["a", "b"])
    cov = poc.coverage(runs, evidence, deadline=None, now=NOW, sampled=["a", "b"])
    summary = cov.fleet["nccl_busbw_gbyte_s"]
    assert summary["nodes"] == 2 and summary["median"] == 155.0
    assert poc.fleet_figures(evidence)["nccl_busbw_gbyte_s"]["nodes"] == 3


def test_every_suggested_command_satisfies_its_own_run():
    """The command shown for a run, recorded with a matching output, covers that run."""
    outputs = {
        "nccl_tests": lambda run, node: dict(
            collective="alltoall" if run.kind == poc.NCCL_MULTI_ALLTOALL else "all_reduce",
            hosts=[f"h{i}" for i in range(run.min_nodes)] if run.min_nodes > 1 else [node],
        ),
    }
    kinds = {
        poc.NCCL_ONE_NODE: "nccl_tests",
        poc.NCCL_MULTI_ALL_REDUCE: "nccl_tests",
        poc.NCCL_MULTI_ALLTOALL: "nccl_tests",
        poc.IB_WRITE_BW: "perftest",
        poc.DCGM_DIAG: "dcgm_diag",
        poc.NVIDIA_SMI_Q: "nvidia_smi_query",
        poc.INVENTORY: "nvidia_smi_list",
    }
    runs = poc.required_runs(spec(all_nodes_max=3), ["a", "b", "c"])
    for run in runs:
        command = poc.suggested_command(run, shared_path="/lustre/poc")
        node = run.node or (run.peers[0] if run.peers else "a")
        kind = kinds.get(run.kind, "fio")
        metrics = outputs[kind](run, node) if kind in outputs else {}
        if kind == "fio":
            rw = "read" if "--rw=read" in command else "randread"
            name = command.split("--name=", 1)[1].split()[0]
            metrics = {"jobs": [{"rw": rw, "name": name}]}
            # The job's label alone places it, even where the path says nothing.
            other = command.replace("/lustre/poc/", "/data/").replace("/local_nvme/", "/data/")
            labelled = ev(node, kind, other, **metrics)
            cov = poc.coverage([run], [labelled], deadline=None, now=NOW)
            assert cov.runs[0].status == poc.COVERED, (run.key, other)
        if kind == "dcgm_diag":
            metrics = {"overall": "pass"}
        e = ev(node, kind, command, **metrics)
        cov = poc.coverage([run], [e], deadline=None, now=NOW, shared_prefixes=("/lustre/poc",))
        assert cov.runs[0].status == poc.COVERED, (run.key, command)


def test_fio_block_size_decides_what_a_run_measures():
    runs = poc.required_runs(spec(node_count=1, workload_profile="inference"), ["a"])
    local = [r for r in runs if r.kind in (poc.FIO_LOCAL_SEQ, poc.FIO_LOCAL_RAND)]

    def status(jobs):
        e = ev("a", "fio", "fio --filename=/nvme/x", jobs=jobs)
        cov = poc.coverage(local, [e], deadline=None, now=NOW)
        return [r.status for r in cov.runs]

    assert status([{"rw": "read", "bs_bytes": 4096}]) == [poc.PENDING, poc.PENDING]
    assert status([{"rw": "read", "bs_bytes": 1 << 20}]) == [poc.COVERED, poc.PENDING]
    assert status([{"rw": "randread", "bs_bytes": 1 << 20}]) == [poc.PENDING, poc.PENDING]
    assert status([{"rw": "randwrite", "bs_bytes": 4096}, {"rw": "write"}]) == [
        poc.COVERED,
        poc.COVERED,
    ]
