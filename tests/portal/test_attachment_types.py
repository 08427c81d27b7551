"""An answer keeps procurement documents only (PDF, office documents, images, text and CSV,
archives of evidence), told by their content, not their name alone: a program is refused
under its own name and renamed "sla.pdf" alike. The refusal names the file and what is kept,
in English and Chinese, on the item it was chosen for, and nothing else typed in the form is
lost or saved half. Attachments kept before the check can still be downloaded."""

import io
import re
import tarfile
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal.models import Answer, AnswerAttachment
from portal.services.attachments import HEAD_BYTES, attachment_type_check
from portal.services.evaluations import answer_attachment_add

from .test_userday_questionnaire import _answers, _page_data, _url

pytestmark = pytest.mark.django_db

PE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" + b"\x00" * 64 + b"PE\x00\x00"
ELF = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 56


def _zip(entries: dict[str, bytes], *, stored_first: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if stored_first:
            archive.writestr(
                zipfile.ZipInfo(stored_first), entries[stored_first], zipfile.ZIP_STORED
            )
        for name, data in entries.items():
            if name != stored_first:
                archive.writestr(name, data)
    return buffer.getvalue()


def _xlsx() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    book.active["A1"] = "GPU-hour price"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _tar_gz() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        data = b"#   size    count  busbw\n"
        info = tarfile.TarInfo("all_reduce_perf.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo("ibstat.txt")
        info.size = 4
        archive.addfile(info, io.BytesIO(b"CA 1"))
    return buffer.getvalue()


KEPT = {
    "sla.pdf": b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n",
    "scan-with-preamble.PDF": b"\r\n" * 20 + b"%PDF-1.4\n%%EOF",
    "contract.docx": _zip(
        {"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"}
    ),
    "prices.xlsx": _xlsx(),
    "deck.pptx": _zip({"[Content_Types].xml": b"<Types/>", "ppt/presentation.xml": b"<p/>"}),
    "terms.odt": _zip(
        {"mimetype": b"application/vnd.oasis.opendocument.text", "content.xml": b"<x/>"},
        stored_first="mimetype",
    ),
    "legacy.xls": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504,
    "certificate.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 16,
    "certificate.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    "rack.webp": b"RIFF\x24\x00\x00\x00WEBPVP8 ",
    "scan.tiff": b"II*\x00\x08\x00\x00\x00",
    "photo.heic": b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic",
    "quote.csv": "项目,单价（元/月）\nGPU,890000\n".encode("gbk"),
    "notes.txt": "SLA 99.95 %, credits 10–30 %\n".encode(),
    "utf16.txt": "等保三级证书编号".encode("utf-16"),
    "logs.zip": _zip({"nvidia-smi-q.txt": b"==============NVSMI LOG=============="}),
    "bundle.tar.gz": _tar_gz(),
    "bundle.tar": _tar(),
    "bundle.7z": b"7z\xbc\xaf\x27\x1c\x00\x04" + b"\x00" * 24,
    "bundle.tar.xz": b"\xfd7zXZ\x00\x00\x04",
    "bundle.tar.bz2": b"BZh91AY&SY",
}

REFUSED_TYPE = {
    "setup.exe": PE,
    "page.html": b"<!doctype html><script>alert(1)</script>",
    "logo.svg": b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    "run.sh": b"#!/bin/sh\nrm -rf /\n",
    "budget.xlsm": _xlsx(),  # a workbook that may carry macros
    "README": b"no extension at all",
}

REFUSED_CONTENT = {
    "sla.pdf": PE,
    "notes.txt": ELF,
    "contract.docx": _zip({"payload.exe": PE}),  # a zip, but no Word document
    "certificate.png": b"GIF89a\x01\x00",
    "logs.zip": b"PK\x03\x04 cut short",
    "quote.csv": b"\xff\xfe\x00\xd8",  # a UTF-16 mark before half a character
    "terms.odt": _zip({"content.xml": b"<x/>"}),
    "photo.heic": b"\x00\x00\x00\x18ftypisom",  # an MP4 video, not an image
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_procurement_documents_are_kept(name):
    upload = SimpleUploadedFile(name, KEPT[name])
    attachment_type_check(upload)
    assert upload.tell() == 0  # left at its start for the storage to copy whole


@pytest.mark.parametrize("name", sorted(REFUSED_TYPE))
def test_other_kinds_of_file_are_refused_by_name(name):
    with pytest.raises(ValidationError) as refused:
        attachment_type_check(SimpleUploadedFile(name, REFUSED_TYPE[name]))
    message = refused.value.message_dict["attachment"][0]
    assert message.startswith(f"“{name}” cannot be attached: the portal keeps PDF, office")


@pytest.mark.parametrize("name", sorted(REFUSED_CONTENT))
def test_a_file_whose_content_is_not_what_its_name_says_is_refused(name):
    with pytest.raises(ValidationError) as refused:
        attachment_type_check(SimpleUploadedFile(name, REFUSED_CONTENT[name]))
    message = refused.value.message_dict["attachment"][0]
    assert message.startswith(f"“{name}” cannot be attached: its name says it is ")
    assert message.endswith("but its content is not.")


def test_a_long_utf8_text_cut_inside_a_character_is_still_text():
    text = ("中" * HEAD_BYTES).encode()  # three bytes a character: the head ends mid-character
    attachment_type_check(SimpleUploadedFile("long.txt", text))


def test_the_service_refuses_a_renamed_program_and_keeps_nothing(demo, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    answer = Answer.objects.get(candidate_id=4, item__number=7)
    procurement = get_user_model().objects.get(username="procurement")
    with pytest.raises(ValidationError):
        answer_attachment_add(
            answer=answer, uploaded_file=SimpleUploadedFile("sla.pdf", PE), by=procurement
        )
    assert not AnswerAttachment.objects.exists()
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_the_page_refuses_it_on_its_item_and_keeps_everything_typed(as_role, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    client = as_role("procurement")
    before = _answers()
    data = _page_data(client)
    data.update(
        {
            "item-1-claim": "8 × H100 SXM, typed before choosing the wrong file",
            "item-6-notes": "Certificate attached.",
            "item-6-attachment": SimpleUploadedFile("mlps3-certificate.pdf", PE),
            "item-7-attachment": SimpleUploadedFile("sla.pdf", KEPT["sla.pdf"]),
        }
    )
    response = client.post(_url(), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert list(errors) == ["item-6-attachment"]
    assert "“mlps3-certificate.pdf” cannot be attached" in errors["item-6-attachment"][0]
    assert _answers() == before
    assert not AnswerAttachment.objects.exists()

    # Without JavaScript: the page comes back with the message by the item and what was typed.
    data["item-6-attachment"] = SimpleUploadedFile("mlps3-certificate.pdf", PE)
    data["item-7-attachment"] = SimpleUploadedFile("sla.pdf", KEPT["sla.pdf"])
    response = client.post(_url(), data)
    assert response.status_code == 422
    html = response.content.decode()
    assert "Nothing was saved" in html
    assert "its name says it is a PDF, but its content is not." in html
    assert re.search(r">\s*8 × H100 SXM, typed before choosing the wrong file</textarea>", html)
    assert re.search(r">\s*Certificate attached.</textarea>", html)
    assert _answers() == before

    data["item-6-attachment"] = SimpleUploadedFile("setup.exe", PE)
    response = client.post(_url(), data, HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = response.content.decode()
    assert "“setup.exe”无法附加：门户只保存" in html
    assert re.search(r">\s*Certificate attached.</textarea>", html)


def test_one_items_save_refuses_it_and_keeps_what_was_typed(as_role, settings, tmp_path):
    """The item's own save (htmx, "Save" beside one item) refuses it the same way."""
    settings.MEDIA_ROOT = tmp_path
    client = as_role("procurement")
    before = _answers()
    typed = "99.95 %, credits 10-30 % (typed with the wrong file)"
    response = client.post(
        _url(number=7),
        {"item-7-claim": typed, "item-7-attachment": SimpleUploadedFile("sla.pdf", PE)},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "“sla.pdf” cannot be attached: its name says it is a PDF" in html
    assert typed in html
    assert _answers() == before
    assert not AnswerAttachment.objects.exists()


def test_the_file_chooser_offers_the_kept_kinds(as_role):
    html = as_role("procurement").get(_url()).content.decode()
    chooser = re.search(r'<input type="file" name="item-7-attachment"[^>]*>', html).group(0)
    accept = re.search(r'accept="([^"]+)"', chooser).group(1).split(",")
    assert {".pdf", ".docx", ".xlsx", ".png", ".csv", ".zip", ".gz"} <= set(accept)
    assert ".exe" not in accept and ".html" not in accept


def test_an_attachment_kept_before_the_check_still_downloads(as_role, settings, tmp_path):
    """A kind refused today, kept before: served as it always was (a download, not sniffed)."""
    settings.MEDIA_ROOT = tmp_path
    answer = Answer.objects.get(candidate_id=1, item__number=7)
    old = AnswerAttachment(answer=answer, original_name="tool.exe", size_bytes=len(PE))
    old.file.save("tool.exe", ContentFile(PE), save=False)
    old.save()
    response = as_role("viewer").get(reverse("attachment-download", args=[1, old.pk]))
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == PE
    assert response["Content-Type"] == "application/octet-stream"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "attachment;" in response["Content-Disposition"]
