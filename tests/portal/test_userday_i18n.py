"""Chinese everywhere: complete catalogues (no empty or fuzzy message), the JavaScript strings
through the djangojs catalogue, and the details that used to stay English or raw on Chinese
pages: choice codes, score bases and inputs, tolerance clauses, History field names, upload
errors and the decision's weights line."""

import ast
import re
from pathlib import Path

import pytest
from django.urls import reverse

from portal.views import display

from .conftest import PASSWORDS

LOCALE = Path(__file__).resolve().parents[2] / "locale" / "zh_Hans" / "LC_MESSAGES"


def _entries(path: Path) -> list[dict]:
    """The .po file's entries: msgid, msgstr (plural forms joined) and flags."""
    entries, current, field = [], None, None
    for raw in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = raw.strip()
        if not line:
            if current is not None:
                entries.append(current)
            current, field = None, None
            continue
        if current is None:
            current = {"msgid": "", "msgstr": "", "flags": set(), "obsolete": False}
        if line.startswith("#~"):
            current["obsolete"] = True
        elif line.startswith("#,"):
            current["flags"] |= {f.strip() for f in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith(("msgid_plural", "msgctxt")):
            field = None
        elif line.startswith("msgid "):
            field = "msgid"
            current[field] = ast.literal_eval(line[6:])
        elif re.match(r"msgstr(\[\d+\])? ", line):
            field = "msgstr"
            current[field] += ast.literal_eval(line.split(" ", 1)[1])
        elif line.startswith('"') and field:
            current[field] += ast.literal_eval(line)
    return entries


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_the_catalogues_have_no_untranslated_or_fuzzy_message(domain):
    po = LOCALE / f"{domain}.po"
    entries = _entries(po)
    assert len(entries) > 5
    untranslated = [e["msgid"] for e in entries if e["msgid"] and not e["msgstr"]]
    fuzzy = [e["msgid"] or "(header)" for e in entries if "fuzzy" in e["flags"]]
    obsolete = [e["msgid"] for e in entries if e["obsolete"]]
    assert untranslated == [], untranslated
    assert fuzzy == [], fuzzy
    assert obsolete == [], obsolete
    # The compiled catalogue is there and not older than its source.
    mo = po.with_suffix(".mo")
    assert mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime - 1


def test_the_parser_sees_a_missing_translation(tmp_path):
    po = tmp_path / "x.po"
    po.write_text(
        'msgid ""\nmsgstr "Language: zh_Hans\\n"\n\n#, fuzzy\nmsgid "a"\nmsgstr "甲"\n\n'
        'msgid "b"\nmsgstr ""\n',
        encoding="utf-8",
    )
    entries = _entries(po)
    assert [e["msgid"] for e in entries if e["msgid"] and not e["msgstr"]] == ["b"]
    assert [e["msgid"] for e in entries if "fuzzy" in e["flags"]] == ["a"]


@pytest.mark.django_db
def test_the_javascript_catalogue_speaks_chinese(client):
    client.cookies["django_language"] = "zh-hans"
    body = client.get(reverse("javascript-catalog")).content.decode()
    assert "%(answered)s/%(total)s answered" in body
    assert "\\u5df2\\u56de\\u7b54" in body or "已回答" in body  # 已回答
    assert "queued: waiting for the importer" in body


def test_score_inputs_and_bases_are_labelled(settings):
    from django.utils import translation

    contribution = {
        "basis": "claimed",
        "inputs": {
            "offering.nvlink_topology": "full_mesh",
            "answer.sla": "claimed",
            "offering.mfa": True,
            "measured.xid_errors": None,
        },
    }
    with translation.override("en"):
        (shown,) = display.contributions([contribution])
        assert shown["basis_label"] == "claimed"
        assert dict(shown["inputs_shown"]) == {
            "offering.nvlink_topology": "Full mesh (all-to-all, NVSwitch)",
            "answer.sla": "Claimed",
            "offering.mfa": "yes",
            "measured.xid_errors": "—",
        }
    with translation.override("zh-hans"):
        (shown,) = display.contributions([contribution])
        assert shown["basis_label"] == "声明"
        values = dict(shown["inputs_shown"])
        assert values["offering.nvlink_topology"] == "全互联（NVSwitch 全对全）"
        assert values["offering.mfa"] == "是"


def test_upload_errors_and_tolerances_follow_the_language():
    from django.utils import translation

    error = "Nothing in this upload could be parsed. junk.txt: unknown format"
    verdict = {"tolerance": "measured ≥ 80 %", "tolerance_zh": "实测值 ≥ 80 %"}
    with translation.override("zh-hans"):
        shown = display.upload_error(error)
        assert shown == "此次上传中没有任何内容可以解析。 junk.txt: unknown format"
        assert display.tolerance(verdict) == "实测值 ≥ 80 %"
        refused = display.upload_error("The bundle was refused: manifest.json is missing")
        assert refused == "结果包被拒绝： manifest.json is missing"
    with translation.override("en"):
        assert display.upload_error(error) == error
        assert display.tolerance(verdict) == "measured ≥ 80 %"


@pytest.fixture
def zh_viewer(client, demo):
    assert client.login(username="viewer", password=PASSWORDS["viewer"])
    client.cookies["django_language"] = "zh-hans"
    return client


def _text(html: str) -> str:
    html = re.sub(r"<script.*?</script>|<style.*?</style>|<code>.*?</code>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", "\n", html)


def test_the_candidate_page_in_chinese_has_no_raw_bases_or_english_tolerances(zh_viewer):
    html = zh_viewer.get("/evaluations/1/candidates/1/").content.decode()
    lines = {line.strip() for line in _text(html).splitlines()}
    for raw in ("claimed", "measured", "missing", "computed", "full_mesh"):
        assert raw not in lines, raw
    assert "same model and form factor" not in html
    assert "型号与规格一致" in html


def test_history_names_its_fields_in_chinese(zh_viewer):
    html = zh_viewer.get("/evaluations/1/history/").content.decode()
    lines = {line.strip() for line in _text(html).splitlines()}
    for english in ("candidate", "item", "evaluation", "user", "token prefix"):
        assert english not in lines, english
    assert "Control over OS install" not in html


def test_the_decision_weights_line_uses_dimension_names(client, demo):
    from django.contrib.auth import get_user_model

    from portal.models import Candidate, Evaluation
    from portal.services.evaluations import decision_record

    evaluation = Evaluation.objects.get(pk=1)
    decision_record(
        evaluation=evaluation,
        candidate=Candidate.objects.get(pk=1),
        rationale="Best measured fabric.",
        by=get_user_model().objects.get(username="manager"),
    )
    assert client.login(username="viewer", password=PASSWORDS["viewer"])
    client.cookies["django_language"] = "zh-hans"
    html = client.get(reverse("evaluation-decision", args=[1])).content.decode()
    line = html.split('class="weights-line">', 1)[1].split("</p>", 1)[0]
    assert "网络" in line and "%" in line
    assert not re.search(r"\b(stability|network|storage|security|cost|support)\b", line)
    # Each weight as its share of the six, as stored (percent): 25 % reads 25.0 %, not 2500.0 %.
    stored = evaluation.weights
    total = sum(stored.values())
    shown = [float(v) for v in re.findall(r"([\d.,]+) %", line)]
    order = ("stability", "network", "storage", "security", "cost", "support")
    assert shown == [round(float(stored[d]) * 100 / float(total), 1) for d in order]
    assert all(0 <= value <= 100 for value in shown)


def test_the_budget_knockout_reference_follows_the_language():
    from django.utils import translation

    with translation.override("zh-hans"):
        shown = display.evidence_ref("TCO: monthly billing over 30 days")
        assert "monthly" not in shown and "billing" not in shown and "30 天" in shown
    with translation.override("en"):
        assert display.evidence_ref("TCO: monthly billing over 30 days") == (
            "TCO: Monthly (per GPU-month), over 30 days"
        )
        assert display.evidence_ref("upload 3 · nccl.txt") == "upload 3 · nccl.txt"


def test_the_portfolio_peak_is_worded_in_chinese(zh_viewer):
    """The demand profile's peak read "48 · 8 h x 5 d" on a Chinese page (found by a trust
    review): it is a sentence in the reader's language."""
    from portal.models import Workload

    workload = Workload.objects.filter(peak_gpus__gt=0).first()
    assert workload is not None, "the demo data has a workload with a peak"
    html = zh_viewer.get(
        reverse("evaluation-portfolio", args=[workload.evaluation_id])
    ).content.decode()
    assert (
        f"{workload.peak_gpus} 块 GPU，每天 {workload.peak_hours_per_day} 小时，"
        f"每周 {workload.peak_days_per_week} 天"
    ) in html
    assert " h × " not in html
