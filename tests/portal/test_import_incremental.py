"""Incremental verification: a refresh after an import re-verifies only the nodes whose evidence
changed and reuses the kept per-node verdicts of the others, with the result of a full
re-verification from every report."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F

from portal import adapters
from portal.models import Candidate, EvidenceSummary, EvidenceUpload, UploadStatus
from portal.services import scores
from portal.services.evidence import evidence_upload_delete
from portal.services.scores import candidate_refresh, full_evidence
from scoring.verification import gpu, verify_candidate
from scoring.verification._util import NodeMemo

from .conftest import sample_bytes, stored_refresh
from .test_import_scale import _import as import_one
from .test_import_scale import bundle

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parent.parent / "scoring" / "evidence" / "samples"

# A node's files: one of each kind a verifier reads per node, two variants of each so that a
# node's second upload changes what it shows.
VARIANTS = {
    "nccl.txt": ("nccl-a100-8gpu.txt", "nccl-h100-2node.txt"),
    "ibstat.txt": ("ibstat-roce-some-down.txt", "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt"),
    "lspci.txt": ("lspci-kvm-vm.txt", "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt"),
    "topo.txt": ("topo-a100-8gpu.txt", "nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt"),
    "nvidia-smi-q.txt": (
        "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt",
        "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt",
    ),
    "lscpu.txt": (
        "cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",
        "cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",
    ),
    "fio.json": (
        "fio/fio333-two-groups-stonewall-json-echoed.txt",
        "fio/fio333-two-groups-stonewall-json-echoed.txt",
    ),
}


def _sample(name: str) -> bytes:
    return (CORPUS / name).read_bytes() if "/" in name else sample_bytes(name)


def _node_bundle(node: str, variant: int, day: datetime, names=None) -> bytes:
    names = names or list(VARIANTS)
    return bundle(
        {name: _sample(VARIANTS[name][variant]) for name in names},
        hostname=node,
        started=day.isoformat(),
        salt=f"{node}-{variant}-{day.isoformat()}",
    )


def _from_scratch(candidate_id: int, monkeypatch) -> dict:
    """What a full re-verification stores: summaries rebuilt from every report, nothing kept
    in this process (fresh memo and decoded rows for this refresh only)."""
    with monkeypatch.context() as patch:
        patch.setattr(scores, "_NODE_MEMO", NodeMemo())
        patch.setattr(scores, "_DECODED", scores._DecodedSummaries(max_chars=4_000_000))
        candidate_refresh(candidate_id=candidate_id, rebuild=True)
    return stored_refresh(candidate_id)


def _assert_incremental_equals_full(candidate, monkeypatch):
    incremental = stored_refresh(candidate.pk)
    # Verified once more with what is kept: still the same (nothing kept was changed).
    candidate_refresh(candidate_id=candidate.pk)
    assert stored_refresh(candidate.pk) == incremental
    assert _from_scratch(candidate.pk, monkeypatch) == incremental
    # And verify_candidate itself: memo given or not, the same report.
    refreshed = Candidate.objects.get(pk=candidate.pk)
    full = full_evidence(refreshed)
    claims = adapters.claims(scores._load(candidate.pk))
    rows, digests = scores._kept_rows_keyed(refreshed)
    kept = scores.facts.evidence_from_summaries(rows, fresh_after=scores._fresh_after(refreshed))
    keys = scores._node_keys(rows, digests, kept)
    assert verify_candidate(
        claims, kept, memo=scores._NODE_MEMO, node_keys=keys
    ) == verify_candidate(claims, full)


@pytest.fixture
def cold_memo(monkeypatch):
    """This test's own memo and decoded rows, empty at its start."""
    monkeypatch.setattr(scores, "_NODE_MEMO", NodeMemo())
    monkeypatch.setattr(scores, "_DECODED", scores._DecodedSummaries(max_chars=4_000_000))


def test_incremental_refreshes_equal_full_reverification(candidate, cold_memo, monkeypatch):
    day = datetime(2026, 11, 20, 8, tzinfo=UTC)
    nodes = ["node-a", "node-b", "node-c", "node-d"]
    # Several bundles across nodes, each refreshing the candidate incrementally.
    for index, node in enumerate(nodes):
        upload = import_one(candidate, _node_bundle(node, index % 2, day + timedelta(hours=index)))
        assert upload.status == UploadStatus.DONE, upload.error
        _assert_incremental_equals_full(candidate, monkeypatch)
    # A second upload of one node, with other results: it supersedes the node's files.
    second = import_one(candidate, _node_bundle("node-b", 0, day + timedelta(days=2)))
    assert second.status == UploadStatus.DONE, second.error
    _assert_incremental_equals_full(candidate, monkeypatch)
    # A partial upload of another node (only some files replaced).
    import_one(
        candidate,
        _node_bundle("node-c", 1, day + timedelta(days=3), names=["nccl.txt", "fio.json"]),
    )
    _assert_incremental_equals_full(candidate, monkeypatch)
    # A rejected upload (nothing parses) changes nothing.
    failed = import_one(candidate, b"nothing to parse here\n", "notes.txt")
    assert failed.status == UploadStatus.FAILED
    _assert_incremental_equals_full(candidate, monkeypatch)
    # A loose file without a node: a node of its own.
    import_one(candidate, sample_bytes("nccl-h100-2node.txt"), "all_reduce.txt")
    _assert_incremental_equals_full(candidate, monkeypatch)
    # Deleting the newer upload of node-b brings its older files back (summaries rebuilt).
    user = get_user_model().objects.create_user(username="lead")
    evidence_upload_delete(upload=second, reason="wrong node", by=user)
    _assert_incremental_equals_full(candidate, monkeypatch)
    # Claims changed (another node count): every node is judged on the new claims.
    Candidate.objects.filter(pk=candidate.pk).update(node_count=4)
    candidate_refresh(candidate_id=candidate.pk)
    _assert_incremental_equals_full(candidate, monkeypatch)
    # Freshness: with an age limit some entries drop out; those nodes are verified afresh.
    candidate.evaluation.max_evidence_age_days = 3
    candidate.evaluation.save(update_fields=["max_evidence_age_days"])
    candidate_refresh(candidate_id=candidate.pk)
    _assert_incremental_equals_full(candidate, monkeypatch)
    assert EvidenceUpload.objects.filter(candidate=candidate, status=UploadStatus.DONE).count() >= 6


def test_a_refresh_reverifies_only_the_nodes_an_import_touched(candidate, cold_memo, monkeypatch):
    day = datetime(2026, 11, 20, 8, tzinfo=UTC)
    for index, node in enumerate(["n1", "n2", "n3"]):
        import_one(candidate, _node_bundle(node, 0, day + timedelta(hours=index)))
    judged = []
    real = gpu._gpu_node
    monkeypatch.setattr(
        gpu, "_gpu_node", lambda node, evs, claims: judged.append(node) or real(node, evs, claims)
    )
    candidate_refresh(candidate_id=candidate.pk)
    assert judged == []  # every node's evidence as at the last refresh: nothing judged again
    import_one(candidate, _node_bundle("n2", 1, day + timedelta(days=1)))
    assert judged == ["n2"]
    import_one(candidate, _node_bundle("n4", 1, day + timedelta(days=1)))
    assert judged == ["n2", "n4"]
    _assert_incremental_equals_full(candidate, monkeypatch)


def test_the_figure_of_equal_files_names_the_same_one_wherever_the_rows_lie(candidate, cold_memo):
    """Two nodes with equal port listings: the slowest-rail figure names the first of them by
    node, not the first row the table happens to return (a rebuild or an update moves rows)."""
    day = datetime(2026, 11, 20, 8, tzinfo=UTC)
    for index, node in enumerate(["node-a", "node-b"]):
        import_one(candidate, _node_bundle(node, 0, day + timedelta(hours=index)))
    before = stored_refresh(candidate.pk)
    ref = before["verification"]["measured"]["evidence_refs"]["ib_rate_gbit_s_min"]
    assert "node-a" in ref
    # node-a's rows rewritten (new row versions at the table's end), then refreshed again.
    EvidenceSummary.objects.filter(candidate=candidate, node_name="node-a").update(
        upload_id=F("upload_id")
    )
    candidate_refresh(candidate_id=candidate.pk)
    assert stored_refresh(candidate.pk) == before
