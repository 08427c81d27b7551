"""A procurement officer working in Chinese reads no English code words on the demo's pages:
detection signals, units, evidence references, billing models, form labels, history fields."""

import csv
import io
import re

import openpyxl
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation

from portal.models import BillingModel, Candidate, Evaluation
from portal.views.display import evidence_ref

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


def visible_text(html: str) -> str:
    """The text a reader sees: no scripts, styles, tags or attributes (titles keep the codes
    for engineers on purpose)."""
    html = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", html)
    return re.sub(r"\s+", " ", re.sub(r"(?s)<[^>]+>", " ", html))


@pytest.fixture
def manager_client(client, demo):
    client.force_login(get_user_model().objects.get(username="manager"))
    return client


@pytest.fixture
def procurement_client(client, demo):
    client.force_login(get_user_model().objects.get(username="procurement"))
    return client


def test_candidate_pages_name_signals_units_and_references_in_chinese(manager_client):
    shown = ""
    for candidate in Candidate.objects.all():
        response = manager_client.get(
            reverse("candidate-detail", args=[candidate.evaluation_id, candidate.pk]), **ZH
        )
        assert response.status_code == 200
        shown += visible_text(response.content.decode())
    # The demo's pages do show detection signals, measurements and fact references.
    assert "DMI 系统产品型号" in shown
    assert "逻辑 CPU 数与声明对比" in shown
    assert "上传 1 · " in shown
    assert "（上传 2）" in shown
    assert "未经验证声明的折算系数" in shown
    for english in (
        "dmi_product",
        "lspci_devices",
        "cpu_count",
        "pci_layout",
        " bool ",
        " count ",
        "(upload ",
        "upload 1 ·",
        " factor ",
        "vendor: mlps_level",
        "= pass",
    ):
        assert english not in shown, english


def test_candidate_form_labels_the_offering_in_chinese(procurement_client):
    evaluation = Evaluation.objects.filter(candidates__isnull=False).first()
    response = procurement_client.get(reverse("candidate-add", args=[evaluation.pk]), **ZH)
    assert response.status_code == 200
    text = visible_text(response.content.decode())
    assert "Offering" not in text
    assert "产品：" in text or "产品:" in text


def test_history_names_the_pinned_offering_version_in_chinese(manager_client):
    evaluation = Evaluation.objects.filter(candidates__offering_version__isnull=False).first()
    response = manager_client.get(reverse("evaluation-history", args=[evaluation.pk]), **ZH)
    text = visible_text(response.content.decode())
    assert "产品版本" in text
    assert "offering version" not in text


def test_portfolio_names_billing_models_in_chinese(manager_client):
    evaluation = Evaluation.objects.filter(workloads__isnull=False).distinct().first()
    response = manager_client.get(reverse("evaluation-portfolio", args=[evaluation.pk]), **ZH)
    assert response.status_code == 200
    html = response.content.decode()
    comparison = visible_text(html[html.index('id="comparison"') :])
    assert "包月" in comparison or "按小时" in comparison
    for code in ("hourly", "monthly", "spot", "yearly"):
        assert not re.search(rf"\b{code}\b", comparison), code


def test_document_review_names_the_billing_model_in_chinese(procurement_client):
    seen = False
    for candidate in Candidate.objects.all():
        response = procurement_client.get(
            reverse("candidate-review", args=[candidate.evaluation_id, candidate.pk]), **ZH
        )
        text = visible_text(response.content.decode())
        if "计算所得 TCO" in text:
            seen = True
            assert not re.search(r"TCO（(hourly|monthly|spot|yearly)）", text)
    assert seen


@pytest.mark.parametrize(
    ("ref", "english", "chinese"),
    [
        (
            "upload 3 · gpu01 · dcgm_diag dcgmi-diag.txt",
            "upload 3 · gpu01 · dcgmi diag dcgmi-diag.txt",
            "上传 3 · gpu01 · dcgmi diag dcgmi-diag.txt",
        ),
        (
            "upload 4 · gpu02 · kernel_log dmesg.txt · 79",
            "upload 4 · gpu02 · dmesg / journalctl -k dmesg.txt · 79",
            "上传 4 · gpu02 · dmesg / journalctl -k dmesg.txt · 79",
        ),
        (
            "gpu01: lspci.txt (upload 2)",
            "gpu01: lspci.txt (upload 2)",
            "gpu01：lspci.txt（上传 2）",
        ),
        ("vendor: xinchuang = false", None, "供应商：信创合规 = 否"),
        ("vendor: mlps_level = 2", None, "供应商：等保级别 = 2"),
    ],
)
def test_evidence_references_are_worded_in_the_readers_language(db, ref, english, chinese):
    with translation.override("en"):
        if english is not None:
            assert evidence_ref(ref) == english
        else:
            assert not evidence_ref(ref).startswith("vendor:")
    with translation.override("zh-hans"):
        assert evidence_ref(ref) == chinese


def test_exports_name_billing_models_in_chinese(manager_client):
    evaluation = Evaluation.objects.filter(candidates__isnull=False).first()
    response = manager_client.get(reverse("evaluation-export", args=[evaluation.pk, "csv"]), **ZH)
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header = rows[0]
    shown = {
        row[header.index(column)]
        for row in rows[1:]
        for column in ("最便宜的计费模式", "推荐计费方式")
        if column in header and len(row) == len(header)
    }
    assert shown & {str(label) for label in _zh_billing_labels()}
    assert not shown & {"hourly", "monthly", "spot", "yearly"}
    book = openpyxl.load_workbook(
        io.BytesIO(
            manager_client.get(
                reverse("evaluation-export", args=[evaluation.pk, "xlsx"]), **ZH
            ).content
        )
    )
    cells = {c.value for row in book.worksheets[0].iter_rows(min_row=2) for c in row}
    assert not cells & {"hourly", "monthly", "spot", "yearly"}


def _zh_billing_labels():
    with translation.override("zh-hans"):
        return [str(label) for _code, label in BillingModel.choices]


def test_a_recorded_portfolio_exports_its_billing_models_by_label(db):
    from portal.models import DecisionRecord
    from portal.services.portfolio import portfolio_export_rows

    decision = DecisionRecord(
        snapshot={
            "portfolio": {
                "currency": "CNY",
                "plan": {
                    "lines": [
                        {
                            "workload": "pretrain",
                            "label": "A · B",
                            "billing_model": "monthly",
                            "tco": "1",
                            "score": 50,
                        }
                    ],
                    "egress": "0",
                    "ops": "0",
                    "total": "1",
                },
                "risks": [],
            }
        }
    )
    with translation.override("zh-hans"):
        rows = portfolio_export_rows(decision)
        assert rows[2][3] == str(dict(BillingModel.choices)["monthly"])
        assert "monthly" not in rows[2]


@pytest.mark.parametrize(
    ("language", "label"), [("en", "A POC deadline is two days away"), ("zh-hans", "POC 截止")]
)
def test_notification_settings_keep_the_poc_abbreviation(client, make_user, language, label):
    client.force_login(make_user("reader"))
    response = client.get(reverse("notification-settings"), HTTP_ACCEPT_LANGUAGE=language)
    text = visible_text(response.content.decode())
    assert label in text
    assert "Poc" not in text


def test_history_names_a_workloads_requirement_overrides_by_label(procurement_client):
    from portal.models import Workload

    workload = Workload.objects.exclude(requirements={}).first()
    assert workload is not None, "the demo's portfolio has a workload with its own requirements"
    key = next(iter(workload.requirements))
    response = procurement_client.get(
        reverse("evaluation-history", args=[workload.evaluation_id]), **ZH
    )
    text = visible_text(response.content.decode())
    with translation.override("zh-hans"):
        label = str(Evaluation._meta.get_field(key).verbose_name)
    assert f"{label} = {workload.requirements[key]}" in text
    assert f'"{key}"' not in text and "&quot;" not in text
