"""A real two-node A100 all_reduce (AWS p4d, EFA; aws-samples/aws-efa-eks) for the demo's A100
candidate: the parser reads it as a 16-rank, two-host run on A100-SXM4-40GB cards (which is why
verification sets it aside for the demo's A100-SXM4-80GB offering: tests/scoring/
test_foreign_gpu_variant.py; provenance in tests/scoring/evidence/samples/PROVENANCE.tsv)."""

from __future__ import annotations

from pathlib import Path

from scoring.evidence import nccl

SAMPLE = Path(__file__).parent / "evidence/samples/nccl_tests/aws-p4d-a100-2node-efa-nccl283.txt"
DEMO = Path(__file__).parents[2] / "fixtures/demo-evidence/2-a100-node-08/all_reduce_perf.txt"


def test_parser_reads_the_two_node_run_through_its_mpi_prefixes():
    m = nccl.parse(SAMPLE.read_text()).metrics
    assert m["collective"] == "all_reduce"
    assert m["ranks"] == 16
    assert m["hosts"] == ["nccl-tests-efa-worker-0", "nccl-tests-efa-worker-1"]
    assert set(m["gpu_names"]) == {"A100-SXM4-40GB"}
    assert m["row_count"] == 28
    assert (m["min_size_bytes"], m["max_size_bytes"]) == (8, 1073741824)
    # the peak is the in-place busbw of the last row (32.84 > 32.71 out-of-place)
    assert (m["peak_busbw_gbyte_s"], m["peak_size_bytes"]) == (32.84, 1073741824)
    assert m["avg_busbw_gbyte_s"] == 7.80081
    assert m["out_of_bounds_ok"] is True and m["wrong_total"] == 0


def test_the_demo_node_folder_is_the_sample_byte_for_byte():
    assert DEMO.read_bytes() == SAMPLE.read_bytes()
