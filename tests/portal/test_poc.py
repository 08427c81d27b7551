"""The POC plan in the portal: the audited service, coverage from real imports, the pages
(role matrix) and the API."""

import io
import json
import tarfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from portal.models import (
    EvaluationStatus,
    PocCandidateNodes,
    PocPlan,
    UploadStatus,
)
from portal.services.errors import EvaluationDecided
from portal.services.evidence import evidence_import, evidence_submit
from portal.services.poc import candidate_coverage, poc_plan_save
from scoring import poc as rules

from .conftest import PASSWORD, sample_bytes

pytestmark = pytest.mark.django_db

SCORING_SAMPLES = Path(__file__).resolve().parents[1] / "scoring" / "evidence" / "samples"
NODES = [f"gpu{i:02d}" for i in range(1, 9)]


def bundle(commands: list[tuple[list[str], str, bytes]], *, hostname: str, nonce: str) -> bytes:
    """A collector bundle: manifest.json (with the token's nonce) plus one member per command."""
    manifest = {
        "schema_version": 1,
        "collector_version": "1.0.0",
        "hostname": hostname,
        "started_at": "2026-11-30T08:00:00Z",
        "finished_at": "2026-11-30T08:02:00Z",
        "nonce": nonce,
        "commands": [
            {
                "name": out.rsplit(".", 1)[0],
                "argv": argv,
                "output": out,
                "exit_code": 0,
                "duration_s": 1.0,
            }
            for argv, out, _ in commands
        ],
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        members = [("manifest.json", json.dumps(manifest).encode())]
        members += [(out, data) for _, out, data in commands]
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _plan(evaluation, by, *, deadline=None, names=None, **kw):
    return poc_plan_save(
        evaluation=evaluation,
        by=by,
        deadline=deadline or timezone.now() + timedelta(days=7),
        node_names=names or {},
        **kw,
    )


def test_saving_a_plan_records_seed_sample_and_history(evaluation, candidate, members):
    plan = _plan(evaluation, members["procurement"], names={candidate.pk: NODES}, sample_size=3)
    row = PocCandidateNodes.objects.get(candidate=candidate)
    assert row.node_names == NODES
    assert row.sampled_nodes == rules.sample_nodes(plan.seed, NODES, 3)
    assert len(row.sampled_nodes) == 3
    assert plan.history.first().history_user == members["procurement"]
    assert row.history.first().history_user == members["procurement"]
    # Saved again without names: the seed and the sample stay.
    again = _plan(evaluation, members["procurement"], sample_size=3)
    assert again.seed == plan.seed
    assert PocCandidateNodes.objects.get(candidate=candidate).sampled_nodes == row.sampled_nodes


def test_a_decided_evaluation_refuses_the_plan(evaluation, candidate, members):
    evaluation.status = EvaluationStatus.DECIDED
    evaluation.save()
    with pytest.raises(EvaluationDecided):
        _plan(evaluation, members["procurement"])
    assert not PocPlan.objects.exists()


def test_bad_input_writes_nothing(evaluation, candidate, members):
    with pytest.raises(ValidationError):
        _plan(evaluation, members["procurement"], names={candidate.pk + 999: ["a"]})
    with pytest.raises(ValidationError):
        _plan(evaluation, members["procurement"], shared_fs_path="relative/path")
    with pytest.raises(ValidationError):
        _plan(evaluation, members["procurement"], all_nodes_max=1)
    assert not PocPlan.objects.exists() and not PocCandidateNodes.objects.exists()


def test_a_real_collector_bundle_covers_required_runs(evaluation, candidate, members, upload_token):
    from portal.models import OfferingVersion

    # The sample run is on A100-SXM4-40GB: offered as that, it is this candidate's own run
    # (a run on another GPU than the offering's covers nothing: tests/scoring/test_poc_failures).
    offering = candidate.offering
    offering.gpu_model, offering.gpu_memory_gib = "NVIDIA A100-SXM4-40GB", 40
    offering.save()
    candidate.offering_version = OfferingVersion.current(offering)
    candidate.save(update_fields=["offering_version"])
    token, _raw = upload_token
    plan = _plan(evaluation, members["procurement"], names={candidate.pk: ["gpu01"]})
    data = bundle(
        [
            (
                ["all_reduce_perf", "-b", "8", "-e", "8G", "-g", "8"],
                "nccl-all-reduce.txt",
                sample_bytes("nccl-a100-8gpu.txt"),
            ),
            (
                ["nvidia-smi", "-L"],
                "nvidia-smi-L.txt",
                (
                    SCORING_SAMPLES / "nvidia_smi_list" / "jasmin-notebooks-2xa100-1g10gb-each.txt"
                ).read_bytes(),
            ),
            (
                ["fio", "--name=seq", "--filename=/shared/poc/f", "--rw=read"],
                "fio.txt",
                (SCORING_SAMPLES / "fio" / "fio333-seqread-normal.txt").read_bytes(),
            ),
        ],
        hostname="gpu01",
        nonce=token.nonce,
    )
    upload, _ = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile("bundle.tar.gz", data),
        node_name="gpu01",
        token=token,
    )
    evidence_import(upload_id=upload.pk, task_id="t-poc")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error
    assert upload.origin == "collector"
    coverage = candidate_coverage(candidate)
    by_kind = {}
    for run in coverage.runs:
        by_kind.setdefault(run.run.kind, run)
    one_node = by_kind[rules.NCCL_ONE_NODE]
    assert one_node.status == rules.COVERED
    assert one_node.evidence[0].upload_id == upload.pk
    assert one_node.evidence[0].node_name == "gpu01"
    assert by_kind[rules.INVENTORY].status == rules.COVERED
    assert by_kind[rules.FIO_SHARED_SEQ].status == rules.COVERED
    assert by_kind[rules.FIO_LOCAL_SEQ].status == rules.PENDING
    assert coverage.fleet["nccl_busbw_gbyte_s"]["median"] == pytest.approx(232.2, abs=0.5)
    # The refresh path stored it on the candidate's verification.
    candidate.refresh_from_db()
    stored = candidate.verification["poc"]
    assert stored["covered"] == coverage.count(rules.COVERED) and stored["failed"] == 0
    # After the deadline the missing runs are failed, in the page data and the stored verdict.
    plan.deadline = timezone.now() - timedelta(minutes=1)
    plan.save()
    late = candidate_coverage(candidate)
    assert late.count(rules.PENDING) == 0
    assert late.count(rules.FAILED) == len(late.runs) - late.count(rules.COVERED) > 0
    _plan(evaluation, members["procurement"], deadline=plan.deadline)
    candidate.refresh_from_db()
    assert rules.FIO_LOCAL_SEQ + "@gpu01" in candidate.verification["poc"]["failed_runs"]


def test_unverified_uploads_do_not_cover_runs(evaluation, candidate, members, upload_token):
    token, _raw = upload_token
    _plan(evaluation, members["procurement"])
    data = bundle(
        [(["all_reduce_perf"], "nccl.txt", sample_bytes("nccl-a100-8gpu.txt"))],
        hostname="gpu01",
        nonce="not-the-nonce",
    )
    upload, _ = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("b.tar.gz", data), token=token
    )
    evidence_import(upload_id=upload.pk, task_id="t-unv")
    upload.refresh_from_db()
    assert upload.origin == "unverified"
    coverage = candidate_coverage(candidate)
    assert coverage.count(rules.COVERED) == 0


# -- pages -----------------------------------------------------------------------------------


def _client(client, user):
    client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.parametrize(
    ("persona", "get_status", "post_status"),
    [
        ("procurement", 200, 302),
        ("manager", 200, 403),
        ("engineer", 200, 403),
        ("viewer", 200, 403),
        ("outsider", 404, 404),
    ],
)
def test_plan_page_role_matrix(
    client, evaluation, candidate, members, persona, get_status, post_status
):
    _client(client, members[persona])
    url = f"/evaluations/{evaluation.pk}/poc-plan/"
    assert client.get(url).status_code == get_status
    post = {
        "deadline": "2030-01-01T10:00",
        "all_nodes_max": "4",
        "sample_size": "2",
        "shared_fs_path": "/lustre",
        f"nodes_{candidate.pk}": "n1\nn2\nn3",
    }
    assert client.post(url, post).status_code == post_status
    assert PocPlan.objects.exists() == (post_status == 302)


def test_plan_page_shows_coverage_and_refuses_bad_input(client, evaluation, candidate, members):
    _client(client, members["procurement"])
    url = f"/evaluations/{evaluation.pk}/poc-plan/"
    bad = client.post(url, {"deadline": "", "all_nodes_max": "1", "sample_size": "2"})
    assert bad.status_code == 422 and not PocPlan.objects.exists()
    _plan(evaluation, members["procurement"], names={candidate.pk: ["n1", "n2"]})
    page = client.get(url).content.decode()
    assert "poc-runs" in page and "dcgmi diag -r 3" in page
    assert '<code class="poc-command">all_reduce_perf -b 8 -e 8G -f 2 -g 8</code>' in page
    detail = client.get(f"/evaluations/{evaluation.pk}/candidates/{candidate.pk}/")
    assert b"poc-runs" in detail.content
    dashboard = client.get(f"/evaluations/{evaluation.pk}/").content.decode()
    assert 'id="poc-panel"' in dashboard
    assert f"/evaluations/{evaluation.pk}/poc-plan/" in dashboard  # next steps link
    assert 'class="poc-pending"' in detail.content.decode()
    # The deadline passes (no refresh in between): the stored coverage reads as failed.
    PocPlan.objects.update(deadline=timezone.now() - timedelta(seconds=1))
    late = client.get(f"/evaluations/{evaluation.pk}/candidates/{candidate.pk}/").content.decode()
    assert 'class="poc-pending"' not in late and 'class="poc-failed"' in late
    assert "missing at the deadline" in late


def test_next_steps_link_to_the_plan_before_it_exists(client, evaluation, candidate, members):
    _client(client, members["viewer"])
    page = client.get(f"/evaluations/{evaluation.pk}/").content.decode()
    assert f"/evaluations/{evaluation.pk}/poc-plan/" in page
    assert 'id="poc-panel"' not in page


def test_plan_page_in_chinese(client, evaluation, candidate, members):
    _client(client, members["procurement"])
    _plan(evaluation, members["procurement"])
    page = client.get(
        f"/evaluations/{evaluation.pk}/poc-plan/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "POC 计划" in page


# -- API -------------------------------------------------------------------------------------


def _api(user):
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.mark.parametrize(
    ("persona", "get_status", "put_status"),
    [
        ("procurement", 200, 200),
        ("manager", 200, 403),
        ("engineer", 200, 403),
        ("viewer", 200, 403),
        ("outsider", 404, 404),
    ],
)
def test_api_role_matrix(evaluation, candidate, members, persona, get_status, put_status):
    api = _api(members[persona])
    url = f"/api/v1/evaluations/{evaluation.pk}/poc-plan/"
    body = {
        "deadline": "2030-01-01T10:00:00Z",
        "sample_size": 2,
        "node_names": {str(candidate.pk): ["a", "b", "c"]},
    }
    assert api.put(url, body, format="json").status_code == put_status
    if put_status != 200:
        _plan(evaluation, members["procurement"])
    assert api.get(url).status_code == get_status
    coverage = api.get(
        f"/api/v1/evaluations/{evaluation.pk}/candidates/{candidate.pk}/poc-coverage/"
    )
    assert coverage.status_code == get_status
    if get_status == 200:
        data = coverage.json()
        assert data["plan"] is True
        assert data["required"] == len(data["runs"]) > 0
        assert data["pending"] == data["required"]


def test_api_put_sets_the_plan_and_a_decided_evaluation_answers_409(evaluation, candidate, members):
    api = _api(members["procurement"])
    url = f"/api/v1/evaluations/{evaluation.pk}/poc-plan/"
    before = api.get(url)
    assert before.status_code == 200 and before.json()["exists"] is False
    base = f"/api/v1/evaluations/{evaluation.pk}/candidates/{candidate.pk}"
    empty = api.get(f"{base}/poc-coverage/").json()
    assert empty["plan"] is False and empty["complete"] is False
    body = {
        "deadline": "2030-01-01T10:00:00Z",
        "sample_size": 2,
        "seed": 7,
        "node_names": {str(candidate.pk): ["a", "b", "c"]},
    }
    response = api.put(url, body, format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["seed"] == 7
    assert data["candidates"][0]["sampled_nodes"] == rules.sample_nodes(7, ["a", "b", "c"], 2)
    bad = api.put(url, {**body, "node_names": {"x": ["a"]}}, format="json")
    assert bad.status_code == 400
    evaluation.status = EvaluationStatus.DECIDED
    evaluation.save()
    assert api.put(url, body, format="json").status_code == 409
    assert PocPlan.objects.get().seed == 7


def test_the_plan_is_in_the_evaluation_trail(evaluation, candidate, members):
    from portal.audit import evaluation_history

    _plan(evaluation, members["procurement"], names={candidate.pk: ["n1", "n2"]})
    _plan(evaluation, members["procurement"], sample_size=1)
    entries = [e for e in evaluation_history(evaluation) if e.kind.startswith("poc")]
    kinds = [(e.kind, e.action) for e in entries]
    assert ("poc_plan", "created") in kinds and ("poc_plan", "changed") in kinds
    assert ("poc_nodes", "created") in kinds
    changed = next(e for e in entries if e.kind == "poc_plan" and e.action == "changed")
    assert changed.user == "procurement"
    assert any(c.field == "sample_size" and c.after == "1" for c in changed.changes)


def test_a_failed_dcgm_run_shows_as_failed_on_the_candidate_page(
    client, evaluation, candidate, members, upload_token
):
    token, _raw = upload_token
    _plan(evaluation, members["procurement"], names={candidate.pk: ["gpu01"]})
    failing = SCORING_SAMPLES / "dcgm_diag" / "memtest-r4-rtx2060-persistence-FAIL.txt"
    data = bundle(
        [(["dcgmi", "diag", "-r", "4"], "dcgmi-diag.txt", failing.read_bytes())],
        hostname="gpu01",
        nonce=token.nonce,
    )
    upload, _ = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("d.tar.gz", data), token=token
    )
    evidence_import(upload_id=upload.pk, task_id="t-dcgm")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error
    coverage = candidate_coverage(candidate)
    dcgm = next(r for r in coverage.runs if r.run.kind == rules.DCGM_DIAG)
    assert dcgm.status == rules.FAILED and dcgm.evidence[0].upload_id == upload.pk
    _client(client, members["viewer"])
    page = client.get(f"/evaluations/{evaluation.pk}/candidates/{candidate.pk}/").content.decode()
    assert f'data-run="{rules.DCGM_DIAG}@gpu01"' in page
    # What the tool reported, not only that it failed.
    assert "dcgmi diag reported fail" in page


def test_a_run_on_another_gpu_is_set_aside_on_the_page_in_both_languages(
    client, evaluation, candidate, members, upload_token
):
    """The sample run is on A100-SXM4-40GB; the candidate offers H100 SXM5 80GB: the one-node
    run stays wanted and the page says what was set aside and why."""
    token, _raw = upload_token
    _plan(evaluation, members["procurement"], names={candidate.pk: ["gpu01"]})
    data = bundle(
        [
            (
                ["all_reduce_perf", "-b", "8", "-e", "8G", "-g", "8"],
                "nccl-all-reduce.txt",
                sample_bytes("nccl-a100-8gpu.txt"),
            )
        ],
        hostname="gpu01",
        nonce=token.nonce,
    )
    upload, _ = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile("bundle.tar.gz", data),
        node_name="gpu01",
        token=token,
    )
    evidence_import(upload_id=upload.pk, task_id="t-foreign")
    one_node = next(
        r for r in candidate_coverage(candidate).runs if r.run.kind == rules.NCCL_ONE_NODE
    )
    assert one_node.status == rules.PENDING and not one_node.evidence
    _client(client, members["viewer"])
    url = f"/evaluations/{evaluation.pk}/candidates/{candidate.pk}/"
    page = client.get(url).content.decode()
    assert "set aside: ran on NVIDIA A100-SXM4-40GB, not the claimed NVIDIA H100 SXM5 80GB" in page
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "已排除：运行于 NVIDIA A100-SXM4-40GB，并非声明的 NVIDIA H100 SXM5 80GB" in page
