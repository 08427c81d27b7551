"""Chinese where the detail matters: scoring's evidence errors are shown by code in the reader's
language (upload list, per-file report, API, notification mail), and the candidate page names
rules, metrics and inputs by label, never by code."""

import functools
import re
from pathlib import Path

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from portal import evidence_messages
from portal.metric_labels import INPUT_LABELS, METRIC_LABELS, input_label, metric_label
from portal.models import EvidenceUpload, Measurement, Score, UploadStatus
from portal.services.evidence import evidence_import
from scoring.evidence.bundle import parse_evidence
from scoring.evidence.codes import raise_sites
from scoring.rubric import RUBRIC_VERSIONS, load_rubric

from .conftest import make_bundle, sample_bytes

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIRS = [ROOT / "tests/scoring/evidence/samples", ROOT / "collector/samples"]
API = "/api/v1/evidence/"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
INPUT_KEY = re.compile(r"(offering|measured|derived|answer|vendor)\.\w+")
JUNK = b"lunch at noon, then rack 4 cabling\n"


def _placeholders(template) -> set[str]:
    with translation.override("en"):
        return set(PLACEHOLDER.findall(str(template)))


# --------------------------------------------------------------------------- the catalogues


def test_every_raised_code_has_a_template_that_fits_its_params():
    sites = raise_sites()
    codes = {code for site in sites for code in site.codes}
    missing = sorted(codes - set(evidence_messages.MESSAGES))
    assert not missing, f"codes without a template in portal/evidence_messages.py: {missing}"
    unused = sorted(set(evidence_messages.MESSAGES) - codes)
    assert not unused, f"templates for codes nothing raises: {unused}"
    for site in sites:
        for code in site.codes:
            needed = _placeholders(evidence_messages.MESSAGES[code])
            assert needed <= site.params, (site.path, site.line, code, needed - site.params)


def test_every_template_and_phrase_has_chinese_with_the_same_placeholders():
    catalogues = [
        evidence_messages.MESSAGES,
        evidence_messages.UPLOAD_MESSAGES,
        evidence_messages.PHRASES,
        METRIC_LABELS,
        INPUT_LABELS,
    ]
    for catalogue in catalogues:
        for key, template in catalogue.items():
            with translation.override("en"):
                english = str(template)
            with translation.override("zh-hans"):
                chinese = str(template)
            assert chinese != english, key
            assert re.search(r"[\u4e00-\u9fff]", chinese), (key, chinese)
            assert set(PLACEHOLDER.findall(chinese)) == set(PLACEHOLDER.findall(english)), key


@functools.cache
def _stored_per_result() -> tuple[tuple[str, frozenset[str]], ...]:
    """Each parsed result of the stored real samples, as its file and the metric names the
    import stores from it as Measurements (the facts, and the numeric key figures no fact
    repeats)."""
    stored = []
    for directory in SAMPLE_DIRS:
        for path in sorted(directory.rglob("*")):
            if not path.is_file() or path.suffix in {".tsv", ".md", ".json"}:
                continue
            for result in parse_evidence(path.name, path.read_bytes()):
                if not result.ok:
                    continue
                facts = {fact.metric for fact in result.facts}
                numbers = {
                    key
                    for key, value in result.metrics.items()
                    if isinstance(value, int | float) and not isinstance(value, bool)
                }
                stored.append((str(path.relative_to(ROOT)), frozenset(facts | numbers)))
    return tuple(stored)


def _stored_metrics() -> dict[str, str]:
    """Every metric name the import stores as a Measurement from the stored real samples, with
    one file that emits it."""
    names: dict[str, str] = {}
    for where, stored in _stored_per_result():
        for name in sorted(stored):
            names.setdefault(name, where)
    return names


def test_every_metric_a_parser_emits_has_a_label():
    emitted = _stored_metrics()
    assert len(emitted) > 80  # every kind's samples were read
    unlabelled = {name: where for name, where in emitted.items() if name not in METRIC_LABELS}
    assert not unlabelled, f"metrics without a label in portal/metric_labels.py: {unlabelled}"


def test_no_two_measurements_of_one_output_read_alike():
    """A fact named otherwise than the metric it repeats was stored twice and listed twice
    under one label ("CPU sockets" for ``cpu_sockets`` and ``sockets``)."""
    clashes = {}
    for where, stored in _stored_per_result():
        by_label: dict[str, set[str]] = {}
        for name in stored:
            by_label.setdefault(str(METRIC_LABELS.get(name, name)), set()).add(name)
        for label, names in by_label.items():
            if len(names) > 1:
                clashes.setdefault(label, (sorted(names), where))
    assert not clashes, f"one output stores these under one label: {clashes}"


def test_every_rubric_input_has_a_label():
    keys = {
        key
        for version in RUBRIC_VERSIONS
        for rule in load_rubric(version).rules
        for key in rule.inputs
    }
    assert len(keys) > 40
    with translation.override("zh-hans"):
        raw = sorted(key for key in keys if input_label(key) == key)
        assert not raw, f"rubric inputs shown as their key: {raw}"
        assert input_label("offering.fabric") != "fabric"
        assert metric_label("peak_busbw_gbyte_s") == "峰值总线带宽"
        assert metric_label("not_a_metric") == "not_a_metric"


def test_a_detail_whose_params_do_not_fit_falls_back_to_its_english_text():
    detail = {"code": "ibstat.no_ports", "params": {}, "message": "CA 'x' has no port status"}
    with translation.override("zh-hans"):
        assert evidence_messages.detail_text(detail) == "CA 'x' has no port status"
        unknown = {"code": "newer.parser", "params": {}, "message": "from a newer parser"}
        assert evidence_messages.detail_text(unknown) == "from a newer parser"


# --------------------------------------------------------------------------- real failed uploads


def _page_upload(client, candidate, data: bytes, name: str) -> EvidenceUpload:
    response = client.post(API, {"file": SimpleUploadedFile(name, data), "candidate": candidate.pk})
    assert response.status_code == 202, response.content
    upload_id = response.json()["id"]
    evidence_import(upload_id=upload_id, task_id=f"t-{upload_id}")
    return EvidenceUpload.objects.get(pk=upload_id)


def _visible(html: str) -> set[str]:
    """The page's text lines as a reader sees them (tags, attributes and scripts removed)."""
    html = re.sub(r"<script.*?</script>|<style.*?</style>", " ", html, flags=re.S)
    return {line.strip() for line in re.sub(r"<[^>]+>", "\n", html).splitlines() if line.strip()}


@pytest.mark.django_db
def test_failed_uploads_are_explained_in_chinese_everywhere(client, candidate, members):
    client.force_login(members["engineer"])
    junk = _page_upload(client, candidate, JUNK, "junk.txt")
    good = make_bundle({"nccl.txt": sample_bytes("nccl-a100-8gpu.txt")})
    cut = _page_upload(client, candidate, good[: len(good) // 2], "cut.tar.gz")
    for upload in (junk, cut):
        assert upload.status == UploadStatus.FAILED
    # Stored in English (for logs and old clients) with the code and params beside it.
    assert junk.error_code == evidence_messages.UPLOAD_NOTHING_PARSED
    [failure] = junk.error_params["failures"]
    assert failure["detail"]["code"] == "file.unknown_kind"
    english = failure["detail"]["message"]
    assert english in junk.error
    assert cut.error_code == evidence_messages.UPLOAD_BUNDLE_REFUSED
    cut_english = cut.error_params["reason"]["message"]

    client.cookies["django_language"] = "zh-hans"
    args = [candidate.evaluation_id, candidate.pk]
    listing = client.get(reverse("candidate-uploads", args=args)).content.decode()
    assert "不是受支持工具的输出" in listing
    assert "结果包被拒绝" in listing
    assert english not in listing and cut_english not in listing
    assert "nvidia-smi topo -m" in listing and "nvidia_smi_topo" not in listing  # tools, not codes
    report = client.get(reverse("candidate-upload-report", args=[*args, junk.pk])).content.decode()
    assert "不是受支持工具的输出" in report and english not in report

    # The JSON the upload page polls: English error and its code kept, the reader's text added.
    body = client.get(f"{API}{junk.pk}/").json()
    assert body["error"] == junk.error
    assert body["error_code"] == "upload.nothing_parsed"
    assert "不是受支持工具的输出" in body["error_display"]
    assert english not in body["error_display"]


@pytest.mark.django_db
@override_settings(LANGUAGE_CODE="zh-hans")
def test_the_import_failed_mail_gives_the_reason_in_the_site_language(
    client, candidate, members, django_capture_on_commit_callbacks
):
    for user in members.values():
        user.email = f"{user.username}@example.test"
        user.save(update_fields=["email"])
    client.force_login(members["engineer"])
    with django_capture_on_commit_callbacks(execute=True):
        upload = _page_upload(client, candidate, JUNK, "junk.txt")
    bodies = [m.body for m in mail.outbox if upload.original_name in m.subject + m.body]
    assert bodies
    assert all("不是受支持工具的输出" in body for body in bodies)
    assert all(upload.error_params["failures"][0]["error"] not in body for body in bodies)


@pytest.mark.django_db
def test_old_rows_without_a_code_show_their_stored_text(client, candidate, members):
    upload = EvidenceUpload.objects.create(
        candidate=candidate,
        original_name="old.txt",
        sha256="0" * 64,
        size_bytes=3,
        status=UploadStatus.FAILED,
        error="Nothing in this upload could be parsed. old.txt: an old parser's words",
    )
    with translation.override("zh-hans"):
        shown = evidence_messages.upload_error(code="", params={}, text=upload.error)
    assert shown == "此次上传中没有任何内容可以解析。 old.txt: an old parser's words"


@pytest.mark.django_db
def test_the_candidate_page_names_rules_and_metrics_by_label(client, candidate, members):
    call_command("loaddata", "checklist", verbosity=0)  # the items the answers' inputs name
    client.force_login(members["engineer"])
    bundle = make_bundle({"nccl.txt": sample_bytes("nccl-a100-8gpu.txt")})
    upload = _page_upload(client, candidate, bundle, "bundle.tar.gz")
    assert upload.status == UploadStatus.DONE
    # The upload page's script says what was imported by tool, as the list does.
    assert client.get(f"{API}{upload.pk}/").json()["kinds_display"] == ["nccl-tests"]
    metrics = set(Measurement.objects.filter(candidate=candidate).values_list("metric", flat=True))
    assert "peak_busbw_gbyte_s" in metrics
    rule_ids = {
        c["rule_id"] for s in Score.objects.filter(candidate=candidate) for c in s.contributions
    }
    assert rule_ids  # the page has contributions to label

    client.cookies["django_language"] = "zh-hans"
    url = reverse("candidate-detail", args=[candidate.evaluation_id, candidate.pk])
    html = client.get(url).content.decode()
    lines = _visible(html)
    assert not (metrics & lines), metrics & lines
    assert not (rule_ids & lines), rule_ids & lines
    raw_keys = [line for line in lines if INPUT_KEY.fullmatch(line)]
    assert not raw_keys, raw_keys
    assert "峰值总线带宽" in lines
    assert 'title="peak_busbw_gbyte_s"' in html  # the code is still there for engineers
    assert 'data-rule-id="' in html


def test_knockout_references_to_the_offering_name_fields_and_choices_by_label():
    from portal.views import display

    with translation.override("zh-hans"):
        assert display.evidence_ref("offering: H100 SXM, gpu_memory_gib = 80") == (
            "产品方案：H100 SXM、显存（GiB） = 80"
        )
        shown = display.evidence_ref("offering: delivery_form = bare_metal")
        assert "裸金属" in shown and "delivery_form" not in shown and "bare_metal" not in shown
        assert display.evidence_ref("offering: 8 GPUs per node × 2 nodes") == (
            "产品方案：每节点 8 块 GPU × 2 个节点"
        )
    with translation.override("en"):
        assert display.evidence_ref("offering: region = cn-north") == (
            "Offering: region / data centre = cn-north"
        )


@pytest.mark.django_db
def test_a_file_that_is_not_utf8_says_how_it_was_read_in_the_readers_language(
    client, candidate, members
):
    """A real lscpu run under a Chinese locale, saved as GBK: imported, and its report row
    says it was read as GB18030, in English and in Chinese."""
    sample = Path(__file__).parents[1] / "scoring/evidence/samples/cpu_info"
    text = (sample / "lscpu-zh-cn-kunpeng920-aarch64-2s-96cpu-old-layout.txt").read_text("utf-8")
    client.force_login(members["engineer"])
    upload = _page_upload(client, candidate, text.encode("gbk"), "lscpu.txt")
    assert upload.status == UploadStatus.DONE
    [row] = upload.report
    assert row["ok"] and row["notes"][0]["code"] == "text.decoded_as"
    args = [candidate.evaluation_id, candidate.pk, upload.pk]
    report = client.get(reverse("candidate-upload-report", args=args)).content.decode()
    assert "not UTF-8: read as GB18030 text" in report
    client.cookies["django_language"] = "zh-hans"
    report = client.get(reverse("candidate-upload-report", args=args)).content.decode()
    assert "not UTF-8" not in report
    assert "GB18030" in report and "UTF-8" in report


@pytest.mark.django_db
def test_the_collectors_status_poll_names_unread_files_in_its_language(client, upload_token):
    """What the collector asks, with its upload token and Accept-Language: each file it sent
    that could not be read, the reason in that language; the report keeps the English text,
    and a file the node did not have is not listed (the collector said so while collecting)."""
    token, raw = upload_token
    bundle = make_bundle(
        {"nccl.txt": sample_bytes("nccl-a100-8gpu.txt"), "notes.txt": JUNK}, nonce=token.nonce
    )
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    posted = client.post(API, {"file": SimpleUploadedFile("b.tar.gz", bundle)}, **auth)
    assert posted.status_code == 202, posted.content
    upload_id = posted.json()["id"]
    evidence_import(upload_id=upload_id, task_id=f"t-{upload_id}")
    EvidenceUpload.objects.filter(pk=upload_id).update(
        report=[
            *EvidenceUpload.objects.get(pk=upload_id).report,
            {"file": "ibstat.txt", "ok": False, "missing": True, "error": "not collected"},
        ]
    )

    english = client.get(f"{API}{upload_id}/", HTTP_ACCEPT_LANGUAGE="en", **auth).json()
    chinese = client.get(f"{API}{upload_id}/", HTTP_ACCEPT_LANGUAGE="zh-Hans", **auth).json()

    [row] = [r for r in english["report"] if r["file"] == "notes.txt"]
    [unread] = english["unread_display"]
    assert unread["file"] == "notes.txt"
    # Tools named by label, as on the pages (the stored text names the kinds by code).
    assert unread["error"].startswith("not the output of a supported tool (supported: ")
    assert "nvidia-smi topo -m" in unread["error"] and "nvidia_smi_topo" in row["error"]
    [unread] = chinese["unread_display"]
    assert unread["file"] == "notes.txt"
    assert "不是受支持工具的输出" in unread["error"] and row["error"] not in unread["error"]
    assert chinese["report"] == english["report"]
    assert chinese["kinds_display"] == ["nccl-tests"]


@pytest.mark.django_db
def test_a_truncated_bundle_says_what_to_do(client, candidate, members):
    # New-user review: a bundle cut in transfer said only "the gzip stream is truncated".
    client.force_login(members["engineer"])
    bundle = make_bundle({"nccl-all-reduce.txt": sample_bytes("nccl-a100-8gpu.txt")})
    upload = _page_upload(client, candidate, bundle[: len(bundle) // 2], "bundle.tar.gz")
    assert upload.status == UploadStatus.FAILED
    shown = {}
    for language in ("en", "zh-hans"):
        with translation.override(language):
            shown[language] = evidence_messages.upload_error(
                code=upload.error_code, params=upload.error_params, text=upload.error
            )
    assert "send it again from the node" in shown["en"]
    assert "请从节点重新发送" in shown["zh-hans"]
