"""Which files an answer may have attached: procurement documents, told by their content.

An attachment backs a claim (a vendor's SLA, a certificate scan, a price sheet, an archive of
test logs). It is kept and handed back as a download (octet-stream, attachment, nosniff), never
shown inline; what the portal refuses is what has no business in a procurement file: programs,
scripts, web pages, disk images, and Office files with macros (.docm, .xlsm). A file is kept
when its name's extension is on the list below and its first bytes are what that kind of file
starts with, so that a program renamed "sla.pdf" is refused as surely as "setup.exe".
Attachments kept before this check stay as they are and can still be downloaded.
"""

import zipfile
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# Bytes read to tell a file's kind: a PDF's header may sit anywhere in its first KiB, a tar
# archive's "ustar" is at offset 257, and a text's first 64 KiB show whether it is text.
HEAD_BYTES = 64 * 1024

OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the container of Office 97-2003 files
ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header, or an empty archive
# A phone's photo of a certificate: the ISO box "ftyp" and the HEIF brand after it.
_HEIF_BRANDS = {b"ftypheic", b"ftypheix", b"ftyphevc", b"ftypmif1", b"ftypmsf1"}


@dataclass(frozen=True)
class Kind:
    extensions: tuple[str, ...]
    label: str  # the family as the refusal names it


def _is_pdf(head: bytes) -> bool:
    # Readers accept the header within the first 1024 bytes (some scanners write a preamble).
    return b"%PDF-" in head[:1024]


def _zip_names(data) -> list[str] | None:
    try:
        with zipfile.ZipFile(data) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None


def _is_ooxml(folder: str):
    def check(head: bytes, data) -> bool:
        if not head.startswith(ZIP_STARTS[0]):
            return False
        names = _zip_names(data)
        return bool(
            names and "[Content_Types].xml" in names and any(n.startswith(folder) for n in names)
        )

    return check


def _is_opendocument(kind: str):
    # An OpenDocument file's first entry is "mimetype", stored uncompressed: its text follows
    # the 30-byte local header and the 8-byte name.
    marker = b"mimetypeapplication/vnd.oasis.opendocument." + kind.encode()

    def check(head: bytes, data) -> bool:
        return head.startswith(ZIP_STARTS[0]) and head[30 : 30 + len(marker)] == marker

    return check


def _is_text(head: bytes) -> bool:
    """Text in UTF-8 (with or without a BOM), UTF-16 with its BOM, or GB18030 (which GBK and
    GB2312 files are): no NUL byte outside UTF-16, and the bytes decode. A character cut at
    the end of the head is not a decoding error."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            head[2 : len(head) - (len(head) % 2)].decode(
                "utf-16-be" if head[0] == 0xFE else "utf-16-le"
            )
        except UnicodeDecodeError:
            return False
        return True
    if b"\x00" in head:
        return False
    for encoding in ("utf-8-sig", "gb18030"):
        for cut in range(4):  # a multi-byte character cut short by HEAD_BYTES
            try:
                head[: len(head) - cut].decode(encoding)
            except UnicodeDecodeError:
                continue
            return True
    return False


def _starts(*prefixes: bytes):
    return lambda head, _data=None: head.startswith(prefixes)


def _is_tar(head: bytes, _data=None) -> bool:
    return head[257:262] == b"ustar"


# Each extension kept: its family (named by a refusal) and the check of its content, given
# the file's head and the file itself (an Office or zip file is opened to read its entries).
_PDF = "pdf"
_OFFICE = "office"
_IMAGE = "image"
_TEXT = "text"
_ARCHIVE = "archive"

_CHECKS = {
    "pdf": (_PDF, lambda head, _data=None: _is_pdf(head)),
    "docx": (_OFFICE, _is_ooxml("word/")),
    "xlsx": (_OFFICE, _is_ooxml("xl/")),
    "pptx": (_OFFICE, _is_ooxml("ppt/")),
    "odt": (_OFFICE, _is_opendocument("text")),
    "ods": (_OFFICE, _is_opendocument("spreadsheet")),
    "odp": (_OFFICE, _is_opendocument("presentation")),
    "doc": (_OFFICE, _starts(OLE2)),
    "xls": (_OFFICE, _starts(OLE2)),
    "ppt": (_OFFICE, _starts(OLE2)),
    "png": (_IMAGE, _starts(b"\x89PNG\r\n\x1a\n")),
    "jpg": (_IMAGE, _starts(b"\xff\xd8\xff")),
    "jpeg": (_IMAGE, _starts(b"\xff\xd8\xff")),
    "gif": (_IMAGE, _starts(b"GIF87a", b"GIF89a")),
    "webp": (_IMAGE, lambda head, _data=None: head[:4] == b"RIFF" and head[8:12] == b"WEBP"),
    "heic": (_IMAGE, lambda head, _data=None: head[4:12] in _HEIF_BRANDS),
    "heif": (_IMAGE, lambda head, _data=None: head[4:12] in _HEIF_BRANDS),
    "tif": (_IMAGE, _starts(b"II*\x00", b"MM\x00*")),
    "tiff": (_IMAGE, _starts(b"II*\x00", b"MM\x00*")),
    "txt": (_TEXT, lambda head, _data=None: _is_text(head)),
    "csv": (_TEXT, lambda head, _data=None: _is_text(head)),
    "tsv": (_TEXT, lambda head, _data=None: _is_text(head)),
    "md": (_TEXT, lambda head, _data=None: _is_text(head)),
    "log": (_TEXT, lambda head, _data=None: _is_text(head)),
    "json": (_TEXT, lambda head, _data=None: _is_text(head)),
    "zip": (
        _ARCHIVE,
        lambda head, data: head.startswith(ZIP_STARTS) and _zip_names(data) is not None,
    ),
    "7z": (_ARCHIVE, _starts(b"7z\xbc\xaf\x27\x1c")),
    "tar": (_ARCHIVE, _is_tar),
    "gz": (_ARCHIVE, _starts(b"\x1f\x8b")),
    "tgz": (_ARCHIVE, _starts(b"\x1f\x8b")),
    "xz": (_ARCHIVE, _starts(b"\xfd7zXZ\x00")),
    "txz": (_ARCHIVE, _starts(b"\xfd7zXZ\x00")),
    "bz2": (_ARCHIVE, _starts(b"BZh")),
    "tbz2": (_ARCHIVE, _starts(b"BZh")),
}

ALLOWED_EXTENSIONS = tuple(_CHECKS)


def _family_labels() -> dict[str, str]:
    return {
        _PDF: _("a PDF"),
        _OFFICE: _("an office document"),
        _IMAGE: _("an image"),
        _TEXT: _("a text or CSV file"),
        _ARCHIVE: _("an archive"),
    }


def allowed_types_text() -> str:
    """The kinds kept, as one sentence part for messages and the form's hint."""
    return _(
        "PDF, office documents (Word, Excel, PowerPoint, OpenDocument), images (PNG, JPEG, "
        "GIF, WebP, TIFF, HEIC), text and CSV, and archives (zip, 7z, tar, gz, xz, bz2)"
    )


def _extension(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base.rsplit(".", 1)[-1] if "." in base else ""


def attachment_type_check(uploaded_file) -> None:
    """Refuse (ValidationError on "attachment") a file whose name's extension is not on the
    list, or whose content is not what its extension says. Reads the head of the file and
    leaves it at its start."""
    name = (uploaded_file.name or "").replace("\\", "/").rsplit("/", 1)[-1]
    extension = _extension(name)
    found = _CHECKS.get(extension)
    if found is None:
        raise ValidationError(
            {
                "attachment": _("“%(name)s” cannot be attached: the portal keeps %(types)s.")
                % {"name": name, "types": allowed_types_text()}
            },
            code="attachment_type",
        )
    family, check = found
    uploaded_file.seek(0)
    head = uploaded_file.read(HEAD_BYTES)
    uploaded_file.seek(0)
    try:
        matches = check(head, uploaded_file)
    finally:
        uploaded_file.seek(0)
    if not matches:
        raise ValidationError(
            {
                "attachment": _(
                    "“%(name)s” cannot be attached: its name says it is %(kind)s, but its "
                    "content is not."
                )
                % {"name": name, "kind": _family_labels()[family]}
            },
            code="attachment_content",
        )


__all__ = ["ALLOWED_EXTENSIONS", "HEAD_BYTES", "allowed_types_text", "attachment_type_check"]
