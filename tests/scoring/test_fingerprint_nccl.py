"""nccl-tests outputs in the node fingerprint: the hosts of the device list (where a name can
tell one node from another) and a digest of each results table (the run itself), read from
real outputs (tests/scoring/evidence/samples/nccl_tests, PROVENANCE.tsv there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.fingerprint import extract, identifying_host

SAMPLES = Path(__file__).parent / "evidence" / "samples" / "nccl_tests"
OCI_H100 = SAMPLES / "oci-h100-2node-roce-nccl2215.txt"
AWS_A100 = SAMPLES / "aws-p4d-a100-2node-efa-nccl283.txt"
# The same AWS run as AWS_A100, another excerpt of its log (rank 0's NCCL INFO lines kept).
AWS_A100_INFO = SAMPLES / "aws-p4d-a100-2node-efa-rank0-nccl-info-lines.txt"


def _read(path: Path) -> str:
    return path.read_text()


@pytest.mark.parametrize(
    ("sample", "hosts"),
    [
        ("cscs-gh200-2node-sarus-v2.18.2.txt", ("nid007106", "nid007109")),
        ("gcp-a3mega-2node-16rank-allreduce-npernode8.txt", ("ztan-mig-235z", "ztan-mig-gq73")),
        ("dgx-spark-2x-gb10-v2.20.0-git-rev-banner-cut.txt", ("spark-d708", "spark-dbf4")),
        (
            "h100-2node-4gpu-each-g4.txt",
            ("alpha-test-16way-node-001", "alpha-test-16way-node-002"),
        ),
        ("oci-a100-1node-ubuntu-nccl2265.txt", ("inst-lscuv-ao-ub24",)),
        # names given to many machines identify nothing
        ("azure-nhc-h200-vm-8gpu-bus00-16g-allreduce.txt", ()),  # "vm"
        ("rtx3090-2node-inc-wrong-results-g-format-108-failed.txt", ()),  # worker1, worker2
        ("nccl-issue2169-h100-alltoall-v2.17.8-truncated.txt", ()),  # Node1
        ("aws-p4d-a100-2node-efa-nccl283.txt", ()),  # nccl-tests-efa-worker-0/1 (pods)
        ("aws-eks-efa-2node-t4-tag-output-ofi150.txt", ()),  # test-nccl-efa-worker-0/1
        ("autodl-2x2080ti-pcie-container.txt", ()),  # autodl-container-xxxxx (masked)
        ("oci-h100-2node-roce-nccl2215.txt", ()),  # inst-xxxxx-…, inst-yyyyy-… (masked)
    ],
)
def test_the_hosts_that_can_name_a_node_are_read_from_the_device_list(sample, hosts):
    assert extract(_read(SAMPLES / sample)).nccl_host == hosts


@pytest.mark.parametrize(
    "name",
    [
        "localhost",
        "localhost.localdomain",
        "vm",
        "Node1",
        "worker2",
        "gpu-01",
        "node-001",
        "3f4e5a6b7c8d",  # a Docker container id
        "llama-train-worker-3",  # a Kubernetes job replica
        "mpi-launcher-x7k2p",
        "trainer-7d9f8b6c5d-x7k2p",  # a Deployment's pod
        "ip-10-0-1-23",  # a private address: the same in every cloud account
        "10.0.1.23",
        "inst-xxxxx-h100-ol89",
        "1234",
    ],
)
def test_names_given_to_many_machines_identify_nothing(name):
    assert identifying_host(name) == ""


def test_an_identifying_host_is_lower_cased():
    assert identifying_host("GPU-Node-HZ3-017.example.cn") == "gpu-node-hz3-017.example.cn"


def test_a_run_has_one_digest_per_results_table():
    found = extract(_read(OCI_H100))
    assert len(found.nccl_run) == 1 and len(found.nccl_run[0]) == 32
    # A one-row table (oci-a100-1node: a single 10 GiB size) is too short to be told apart.
    assert extract(_read(SAMPLES / "oci-a100-1node-ubuntu-nccl2265.txt")).nccl_run == ()


def test_the_same_run_is_recognised_in_another_excerpt_of_its_log():
    # Two files of one AWS run: different bytes (one keeps rank 0's NCCL INFO lines), the same
    # results table, so the same run digest.
    assert AWS_A100.read_bytes() != AWS_A100_INFO.read_bytes()
    assert extract(_read(AWS_A100)).nccl_run == extract(_read(AWS_A100_INFO)).nccl_run != ()


def test_edited_hostnames_and_launcher_prefixes_do_not_hide_a_replayed_run():
    text = _read(OCI_H100)
    disguised = "\n".join(
        "0: " + line.replace("inst-xxxxx-h100-ol89", "cn-gz-a800-017") for line in text.splitlines()
    )
    original, replay = extract(text), extract(disguised)
    assert replay.nccl_run == original.nccl_run
    assert replay.nccl_host == ("cn-gz-a800-017",)


def test_distinct_runs_have_distinct_digests():
    digests = [
        extract(_read(path)).nccl_run
        for path in sorted(SAMPLES.glob("*.txt"))
        if path != AWS_A100_INFO
    ]
    flat = [d for run in digests for d in run]
    assert len(flat) == len(set(flat)) >= 12


def test_other_tools_give_no_nccl_identifiers():
    others = [p for p in SAMPLES.parent.rglob("*") if p.is_file() and p.parent != SAMPLES]
    assert len(others) > 100
    for path in others:
        found = extract(path.read_bytes().decode("utf-8", errors="replace"))
        assert found.nccl_host == () and found.nccl_run == (), path
