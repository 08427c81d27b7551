"""A reader who chose Chinese meets no English sentence where the portal speaks: every page each
demo persona reaches from the dashboard (htmx fragments and chart figures included), the forms'
errors, the API's browsable pages and JSON errors, the e-mails, the report PDF's HTML, the
exports and the JavaScript strings.

Text people typed (names, claims, notes, descriptions) and text read from evidence files stay as
they were written; the words a Chinese page keeps in Latin letters are listed in
``ALLOWED_WORDS`` with the reason for each. Anything else in Latin letters is a leak: two or
more such words in a row, or one word standing alone where a sentence or label would be.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from collections import deque
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import openpyxl
import pytest
from django.apps import apps
from django.conf import settings
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation

from portal.services.demo import DEMO_USERS

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
ZH = "zh-hans"

# Words a Chinese reader sees in Latin letters on purpose, grouped by the reason. Compared
# case-sensitively.
ALLOWED_WORDS = {
    # Products, vendors, technologies and standards known by these names in Chinese documents
    # too (NVIDIA's own Chinese pages keep them): translating them would hide what they name.
    "names": (
        "NVIDIA NVLink NVSwitch NVLS InfiniBand RoCE Ethernet GeForce RTX Blackwell Hopper Ampere "
        "HGX DGX ConnectX BlueField Lustre GPFS CephFS NFS KVM QEMU VFIO VMware Xen Docker "
        "Kubernetes AMD Instinct SeaBIOS OVMF RHEL RHEV LoRA Excel Django REST ISO NIST Xinchuang"
    ),
    # Abbreviations that Chinese procurement and operations texts use as they are.
    "abbreviations": (
        "GPU GPUs CPU CPUs POC SLA TCO MIG vGPU PCIe PCI SXM NVMe SSD HDD ECC MFA RDMA VLAN VXLAN "
        "NUMA DMI BMC BIOS HCA GUID IOPS RTT TCP UTC SRAM TPC DCGM NCCL NDR HDR XDR EDR AHP CSV "
        "XLSX PDF API JSON HTML URL MLPS SOC CNY USD VM VMs IP ID AZ DC GbE HBM VGA IPMI OS"
    ),
    # Units and their symbols, as printed beside the numbers (SI and IEC prefixes).
    "units": "GiB TiB MiB KiB GB TB MB KB Gb Gbit ms µs us",
    # Tools, their sub-commands and the words they print, as typed or read on a node: the
    # reader must find them in the tool's own output.
    "tools": (
        "nccl-tests nvidia-smi topo nvlink ibstat ib_write_bw lspci lscpu dmidecode fio dcgmi "
        "diag ip link systemd-detect-virt busbw algbw all-reduce All-reduce alltoall "
        "all_reduce_perf psync iodepth direct rank ranks rail root Root Active Down Polling "
        "LinkUp Disabled virtio"
    ),
    # HTTP methods and the browsable API's format names, as a client sends them.
    "http": "GET POST PUT PATCH DELETE OPTIONS HEAD json api",
    # The language switcher names English in English, as every site names its languages.
    "languages": "English",
}
ALLOWED = frozenset(word for words in ALLOWED_WORDS.values() for word in words.split())

# Phrases kept whole, with the reason: each is a tool's own output or a product's name.
ALLOWED_PHRASES = (
    "Django REST framework",  # the browsable API's own product name
    "Remapped Rows, Pending: Yes",  # nvidia-smi -q's line, quoted so it can be found there
    "Red Hat Virtualization",  # a hypervisor's product name, as dmidecode names it
)

WORD = re.compile(r"(?<![\w.\-/@])[A-Za-z][A-Za-z'’]+(?:-[A-Za-z]+)*(?![\w\-/@]|\.[A-Za-z0-9])")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")
PLACEHOLDER = " ¤ "
# A half-width mark against a Chinese character: "稳定性: 50", "带外管理 (IPMI)", "已声明; 是",
# "dcgmi-diag: 未采集", a colon after a full-width closing bracket.
HAN = "\u3400-\u9fff"
HALF_WIDTH = re.compile(rf"[{HAN}）][,;:]|[,;:] ?[{HAN}]|[{HAN}] ?\((?!\d)|\) ?[{HAN}]|[{HAN}]\)")
# What the form checks send where numbers, dates and names go (echoed back in the fields).
INVALID_INPUTS = ("abc",)


# What people typed (and what was read from evidence files): shown as written in every language.
TYPED = {
    "auth.User": "username first_name last_name",
    "portal.Vendor": "name website contact_name contact_email contact_phone regions "
    "other_certifications notes",
    "portal.Offering": "name description gpu_model mig_vgpu_profile mig_profile distributed_fs "
    "region region_country region_province region_zone sla_compensation",
    "portal.Workload": "name latency_endpoints",
    "portal.Evaluation": "name description accepted_gpu_models home_country home_province",
    "portal.Candidate": "notes",
    "portal.Answer": "claim notes",
    "portal.AnswerReview": "note claim_reviewed",
    "portal.AnswerAttachment": "original_name",
    "portal.DecisionRecord": "rationale",
    "portal.DecisionReopening": "reason",
    "portal.UploadToken": "node_name label",
    "portal.EvidenceUpload": "original_name node_name",
    "portal.EvidenceDeletion": "original_name reason",
    "portal.HardwareIdentifier": "value",
    "portal.Measurement": "node_name source_file",
    "portal.EvidenceSummary": "node_name",
    "portal.PocPlan": "shared_fs_path",
}


def typed_texts() -> list[str]:
    """Every stored value people typed, longest first (so a name inside a longer one goes
    with it), with the current and the historical rows."""
    found: set[str] = set()
    for label, fields in TYPED.items():
        app, name = label.split(".")
        models = [apps.get_model(app, name)]
        with contextlib.suppress(LookupError):
            models.append(apps.get_model(app, f"Historical{name}"))
        for model in models:
            for field in fields.split():
                for value in model.objects.values_list(field, flat=True).distinct():
                    if value and re.search("[A-Za-z]", str(value)):
                        found.add(str(value).strip())
    return sorted(found, key=len, reverse=True)


class Scanner:
    """Finds English a Chinese reader would meet in a text, typed text and allowed phrases
    aside."""

    def __init__(self, codes: frozenset[str] = frozenset()):
        # ``codes``: identifiers a reader types as they are (the API's field names).
        self.allowed = ALLOWED | codes
        typed = set(typed_texts())
        # Shown shortened too: a vendor's name without its Chinese name in brackets.
        typed |= {t.split(" (")[0] for t in typed if " (" in t}
        self.typed = sorted((t for t in typed if len(t) >= 2), key=len, reverse=True)
        self._typed_re = re.compile(
            "|".join(rf"(?<![\w-]){re.escape(t)}(?![\w-])" for t in self.typed)
        )
        self.phrases = [*ALLOWED_PHRASES, *INVALID_INPUTS]
        self.leaks: dict[str, set[str]] = {}
        # A line's findings, by the line: every page repeats its header, menus and tables, and
        # a line's findings depend on the line and the typed texts alone.
        self._found: dict[tuple, tuple[str, ...]] = {}

    def scrub(self, text: str) -> str:
        # A long value cut short ("Pearl River AI · RTX 4090…", "Pre-training a 13B… (展开全文)").
        text = re.sub(r"[^¤\n·]+?(?:\.\.\.|…)", self._cut_typed, text)
        text = self._typed_re.sub(PLACEHOLDER, text)
        for phrase in self.phrases:
            text = text.replace(phrase, PLACEHOLDER)
        # Code as typed: the API descriptions' ``{"action": "adopt"}``.
        text = re.sub(r"``.+?``", PLACEHOLDER, text)
        # Addresses (links in e-mails).
        text = re.sub(r"https?://\S+", PLACEHOLDER, text)
        # Evidence values quoted as read ("System Product Name 'RHEV Hypervisor'"), and a PCI
        # device's name as lspci prints it after its ids, in full-width brackets.
        text = re.sub(r"'[^'\n]{1,80}'", PLACEHOLDER, text)
        return re.sub(r"\b([0-9a-f]{4}:[0-9a-f]{4})（[^（）\n]{1,80}）", r"\1" + PLACEHOLDER, text)

    def _cut_typed(self, match: re.Match) -> str:
        shown = match.group().rstrip(".…").strip()
        if shown and any(value.startswith(shown) for value in self.typed):
            return PLACEHOLDER
        return match.group()

    def english(self, text: str, *, code_ok: bool = False) -> list[str]:
        """The English runs of ``text``: spans without Chinese holding two or more words that
        are not allowed, or a lone such word where the text has no Chinese at all (a label or
        a button). ``code_ok``: a single token is a code kept for engineers (a title)."""
        text = self.scrub(text)
        runs = []
        for span in CJK.split(text):
            words = [w for w in WORD.findall(span) if w not in self.allowed]
            lone = len(words) == 1 and not CJK.search(text) and not code_ok
            if len(words) >= 2 or lone:
                runs.append(span.strip())
        return runs

    def check(self, where: str, text: str, *, code_ok: bool = False) -> None:
        for line in text.splitlines():
            line = line.strip()
            # A JSON body (the browsable API's raw-data form) is code, not prose.
            if line and not line.startswith(("{", "[")):
                for leak in self._line_leaks(line, code_ok):
                    self.leaks.setdefault(leak, set()).add(where)

    def _line_leaks(self, line: str, code_ok: bool) -> tuple[str, ...]:
        key = (self._typed_re, len(self.typed), line, code_ok)
        if key not in self._found:
            runs = self.english(line, code_ok=code_ok)
            marks = self.half_width(line)
            self._found[key] = tuple(f"{found!r} in {line[:160]!r}" for found in [*runs, *marks])
        return self._found[key]

    def check_punctuation(self, where: str, text: str) -> None:
        """Half-width marks only (``check`` reads the English): for the sentences a page
        builds of several elements."""
        for line in text.splitlines():
            line = line.strip()
            if line and not line.startswith(("{", "[")):
                for mark in self.half_width(line):
                    self.leaks.setdefault(f"{mark!r} in {line[:160]!r}", set()).add(where)

    def half_width(self, text: str) -> list[str]:
        """Half-width punctuation where Chinese takes the full-width mark: a comma, semicolon,
        colon or bracket written against Chinese text (what people typed aside)."""
        return HALF_WIDTH.findall(self.scrub(text))

    def report(self) -> str:
        return "\n".join(
            f"{leak}  ({len(where)}×, e.g. {sorted(where)[0]})"
            for leak, where in sorted(self.leaks.items())
        )


BLOCKS = {
    "p", "div", "li", "td", "th", "tr", "h1", "h2", "h3", "h4", "h5", "option", "label",
    "button", "dt", "dd", "br", "summary", "legend", "figcaption", "caption", "a", "span",
    "small", "strong", "em", "title", "section", "article", "header", "footer", "nav", "ul",
    "ol", "table", "form", "select", "textarea",
}  # fmt: skip
SKIPPED = {"script", "style", "code", "pre", "kbd", "samp"}
# Elements that sit inside a sentence: the punctuation a template writes between them and the
# text around them ("<strong>稳定性</strong>: 50") is read with that text.
INLINE = {"a", "span", "small", "strong", "em", "b", "i", "q", "abbr", "time", "code", "kbd",
          "samp", "sup", "sub"}  # fmt: skip
SHOWN_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt", "data-confirm")


class Page(HTMLParser):
    """A page's visible text (one line per element), the attributes a reader sees, the links a
    reader follows (href, hx-get, data-poll), the figures handed to the charts and the forms.
    ``sentences``: the visible text again, one line per block element, inline elements (a
    bold label, a linked name, a code) read with the text around them."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.sentences: list[str] = []
        self._sentence: list[str] = []
        self.attributes: list[str] = []
        self.links: list[str] = []
        self.figures: list[str] = []
        self.forms: list[dict] = []
        self._skip: list[str] = []
        self._json: list[str] | None = None
        self._select: str | None = None
        self._textarea: str | None = None
        self._buffer: list[str] = []
        self.feed(html)
        self.close()
        self._flush()
        self._end_sentence()

    def _flush(self):
        text = re.sub(r"\s+", " ", "".join(self._buffer)).strip()
        if text:
            self.lines.append(text)
        self._buffer = []

    def _end_sentence(self):
        text = re.sub(r"\s+", " ", "".join(self._sentence)).strip()
        if text:
            self.sentences.append(text)
        self._sentence = []

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        for key in ("href", "hx-get", "data-poll"):
            if a.get(key):
                self.links.append(a[key])
        for key in SHOWN_ATTRIBUTES:
            if a.get(key):
                self.attributes.append(a[key])
        if tag == "script" and a.get("type") == "application/json":
            self._json = []
        if tag in SKIPPED:
            self._skip.append(tag)
            if tag in INLINE and len(self._skip) == 1:
                self._sentence.append(PLACEHOLDER)  # a code's text is not prose
        if tag in BLOCKS:
            self._flush()
        if tag in BLOCKS - INLINE:
            self._end_sentence()
        self._form_tag(tag, a)

    def _form_tag(self, tag, a):
        if tag == "form":
            self.forms.append(
                {"method": a.get("method", "get").lower(), "action": a.get("action", ""),
                 "fields": [], "buttons": []}
            )  # fmt: skip
            return
        if not self.forms or not a.get("name"):
            return
        form = self.forms[-1]
        if tag == "input":
            kind = a.get("type", "text").lower()
            if kind in ("submit", "button", "image"):
                form["buttons"].append((a["name"], a.get("value", "")))
            elif kind in ("checkbox", "radio"):
                if "checked" in a:
                    form["fields"].append((a["name"], kind, a.get("value", "on")))
            elif kind != "file":
                form["fields"].append((a["name"], kind, a.get("value", "")))
        elif tag == "button" and a.get("type", "submit") == "submit":
            form["buttons"].append((a["name"], a.get("value", "")))
        elif tag == "select":
            self._select = a["name"]
            form["fields"].append((a["name"], "select", None))
        elif tag == "option" and self._select is not None:
            name, kind, value = form["fields"][-1]
            if value is None or "selected" in a:
                form["fields"][-1] = (name, kind, a.get("value", ""))
        elif tag == "textarea":
            form["fields"].append((a["name"], "textarea", ""))

    def handle_endtag(self, tag):
        if tag == "script" and self._json is not None:
            self.figures.append("".join(self._json))
            self._json = None
        if self._skip and self._skip[-1] == tag:
            self._skip.pop()
        if tag == "select":
            self._select = None
        if tag in BLOCKS:
            self._flush()
        if tag in BLOCKS - INLINE:
            self._end_sentence()

    def handle_data(self, data):
        if self._json is not None:
            self._json.append(data)
        elif not self._skip:
            self._buffer.append(data)
            self._sentence.append(data)


# Keys of a Plotly figure whose strings a reader sees (titles, names, hover and axis text).
FIGURE_TEXT_KEYS = {
    "name", "text", "title", "hovertemplate", "texttemplate", "ticktext", "customdata",
    "x", "y", "theta", "labels", "ticksuffix", "tickprefix",
}  # fmt: skip


def figure_texts(node, key: str | None = None):
    """The strings a reader sees in a Plotly figure (placeholders and tags taken out)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in ("template", "font", "colorscale"):
                yield from figure_texts(v, k)
    elif isinstance(node, list):
        for item in node:
            yield from figure_texts(item, key)
    elif isinstance(node, str) and key in FIGURE_TEXT_KEYS:
        text = re.sub(r"%\{[^}]*\}|<extra>.*?</extra>", " ", node)
        yield from re.split(r"<br\s*/?>|\n", re.sub(r"<(?!br)[^>]+>", " ", text))


def zh_client(username: str, password: str) -> Client:
    client = Client()
    assert client.login(username=username, password=password)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = ZH
    return client


# Not followed: leaving, switching language, files, the API (checked apart), the collector
# script (it speaks the node's language, tests/collector/test_language.py) and the admin.
NOT_FOLLOWED = ("/accounts/logout/", "/i18n/", "/static/", "/media/", "/api/", "/jsi18n/",
                "/collector/", "/admin/", "/favicon")  # fmt: skip
# Posted only with the answers a page gives (never with a valid change that would remove or
# revoke what the other checks read).
NOT_POSTED = re.compile(r"/(delete|remove|revoke|retract|logout|i18n|report/pdf|catalogue)/")


def pattern(path: str) -> str:
    """The route of a path: /evaluations/1/candidates/3/ and /evaluations/2/candidates/8/ are
    one."""
    return re.sub(r"/\d+(?=/|$)", "/N", path.split("?")[0])


def crawl(
    client: Client,
    scanner: Scanner,
    who: str,
    forms: dict,
    read_before: set[str],
    within: tuple[str, ...] = ("/",),
) -> int:
    """Every page reachable from the dashboard (under ``within``), checked; returns how many
    were read. A page an earlier persona read is read again only twice per route (what this
    role sees differs, the data on it does not)."""
    seen: set[str] = set()
    routes: dict[str, int] = {}
    queue = deque(within)
    while queue:
        url = queue.popleft()
        if url in seen:
            continue
        seen.add(url)
        route = pattern(url)
        if url in read_before and routes.get(route, 0) >= 2:
            continue
        routes[route] = routes.get(route, 0) + 1
        read_before.add(url)
        response = client.get(url)
        if response.status_code in (301, 302):
            queue.append(response["Location"])
            continue
        assert response.status_code == 200, (who, url, response.status_code)
        content_type = response["Content-Type"]
        if "text/csv" in content_type or "spreadsheet" in content_type:
            check_export(scanner, f"{who} {url}", response)
            continue
        assert "text/html" in content_type, (url, content_type)
        page = check_html(scanner, f"{who} {url}", response.content.decode())
        for form in page.forms:
            if form["method"] == "post":
                action = urljoin(url, form["action"]) if form["action"] else url
                buttons = tuple(sorted(name for name, _value in form["buttons"]))
                key = (pattern(urlsplit(action).path), buttons)
                forms.setdefault(key, (who, action, form))
        for link in page.links:
            parts = urlsplit(urljoin(url, link))
            if parts.netloc not in ("", "testserver") or parts.path.startswith(NOT_FOLLOWED):
                continue
            if not parts.path.startswith(within):
                continue
            if "/download/" in parts.path:
                continue
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            if target not in seen:
                queue.append(target)
    return sum(routes.values())


def check_html(scanner: Scanner, where: str, html: str) -> Page:
    page = Page(html)
    scanner.check(where, "\n".join(page.lines))
    scanner.check_punctuation(where, "\n".join(page.sentences))
    scanner.check(where, "\n".join(page.attributes), code_ok=True)
    for figure in page.figures:
        scanner.check(f"{where} (chart)", "\n".join(figure_texts(json.loads(figure))))
    return page


def check_export(scanner: Scanner, where: str, response) -> None:
    if "text/csv" in response["Content-Type"]:
        rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    else:
        book = openpyxl.load_workbook(io.BytesIO(response.content))
        rows = [
            [cell for cell in row if cell is not None]
            for sheet in book.worksheets
            for row in sheet.iter_rows(values_only=True)
        ] + [[sheet.title] for sheet in book.worksheets]
    for row in rows:
        scanner.check(where, "\n".join(str(cell) for cell in row if isinstance(cell, str)))


def invalid_posts(form: dict):
    """The form sent back three ways a hurried person sends it: empty, with words where numbers
    and dates go, and with numbers below any minimum."""
    button = dict(form["buttons"][:1])
    form = {**form, "fields": [(n, k, v or "") for n, k, v in form["fields"]]}
    kept = {name: value for name, kind, value in form["fields"] if kind in ("hidden", "select")}
    yield {**kept, **button}
    yield {
        **{name: value for name, _kind, value in form["fields"]},
        **{
            name: INVALID_INPUTS[0]
            for name, kind, _v in form["fields"]
            if kind not in ("hidden", "select")
        },
        **button,
    }
    yield {
        **{name: value for name, _kind, value in form["fields"]},
        **{
            name: "-5"
            for name, kind, _v in form["fields"]
            if kind in ("number", "text", "date", "datetime-local")
        },
        **button,
    }


@pytest.fixture
def scanner(demo):
    return Scanner()


def test_every_page_each_persona_reaches_reads_in_chinese(scanner):
    """Every page, fragment, chart and export each demo persona reaches from the dashboard, and
    every form each of them can send, answered in Chinese when sent wrong."""
    forms: dict = {}
    clients = {username: zh_client(username, password) for username, password, *_ in DEMO_USERS}
    read_before: set[str] = set()
    read = {who: crawl(client, scanner, who, forms, read_before) for who, client in clients.items()}
    assert all(count > 30 for count in read.values()), read
    posted = 0
    for who, action, form in forms.values():
        if NOT_POSTED.search(action):
            continue
        for data in invalid_posts(form):
            response = clients[who].post(action, data)
            posted += 1
            if "text/html" in response.get("Content-Type", "") and response.status_code != 302:
                check_html(scanner, f"{who} POST {action}", response.content.decode())
    assert posted > 30, posted
    assert not scanner.leaks, "English on Chinese pages:\n" + scanner.report()


def test_a_decided_evaluation_reads_in_chinese(scanner):
    """The demo has no decided evaluation: one decided on a candidate, one on a portfolio, and
    their pages read (the decision, the frozen notices, the report and its PDF's status), their
    forms refused in Chinese."""
    from portal.models import Candidate, Evaluation
    from portal.services.evaluations import decision_record
    from portal.services.portfolio import portfolio_decision_record

    manager = get_user("manager")
    decision_record(
        evaluation=Evaluation.objects.get(pk=1),
        candidate=Candidate.objects.get(pk=1),
        rationale="typed by the manager",
        by=manager,
    )
    portfolio = Evaluation.objects.filter(workloads__isnull=False).distinct().get()
    portfolio_decision_record(evaluation=portfolio, rationale="typed by the manager", by=manager)
    scanner.typed.append("typed by the manager")
    scanner._typed_re = re.compile(scanner._typed_re.pattern + "|typed by the manager")
    within = ("/evaluations/1/", f"/evaluations/{portfolio.pk}/")
    forms: dict = {}
    read_before: set[str] = set()
    clients = {who: zh_client(who, password) for who, password, *_ in DEMO_USERS[:2]}
    for who, client in clients.items():
        assert crawl(client, scanner, who, forms, read_before, within) > 20
    for who, action, form in forms.values():
        if not NOT_POSTED.search(action):
            for data in invalid_posts(form):
                response = clients[who].post(action, data)
                if "text/html" in response.get("Content-Type", ""):
                    check_html(scanner, f"{who} POST {action}", response.content.decode())
    # The report PDF asked for: its status while it is made.
    response = clients["manager"].post(reverse("evaluation-report-pdf", args=[1]), follow=True)
    check_html(scanner, "manager report PDF asked", response.content.decode())
    page = Page(response.content.decode())
    for link in page.links:
        if "/report/pdf/" in link and "download" not in link:
            status = clients["manager"].get(link)
            check_html(scanner, f"manager {link}", status.content.decode())
    assert not scanner.leaks, "English on decided evaluations' Chinese pages:\n" + scanner.report()


def test_the_pages_a_visitor_and_an_error_reach_read_in_chinese(scanner):
    """The sign-in page and its refusal, the 404 and 403 pages and the stale-form (CSRF)
    page."""
    visitor = Client(enforce_csrf_checks=True)
    visitor.cookies[settings.LANGUAGE_COOKIE_NAME] = ZH
    check_html(scanner, "visitor login", visitor.get(reverse("login")).content.decode())
    refused = Client()
    refused.cookies[settings.LANGUAGE_COOKIE_NAME] = ZH
    response = refused.post(reverse("login"), {"username": "viewer", "password": "wrong"})
    check_html(scanner, "visitor login refused", response.content.decode())
    for _attempt in range(settings.AXES_FAILURE_LIMIT):
        response = refused.post(reverse("login"), {"username": "viewer", "password": "wrong"})
    assert response.status_code == 429
    check_html(scanner, "visitor locked out", response.content.decode())
    stale = visitor.post(reverse("login"), {"username": "viewer", "password": "wrong"})
    assert stale.status_code == 403
    check_html(scanner, "visitor csrf", stale.content.decode())
    username, password, *_ = DEMO_USERS[3]
    viewer = zh_client(username, password)
    for url, status in [("/no/such/page/", 404), (reverse("evaluation-edit", args=[1]), 403)]:
        response = viewer.get(url)
        assert response.status_code == status, url
        check_html(scanner, f"viewer {url}", response.content.decode())
    assert not scanner.leaks, "English on Chinese pages:\n" + scanner.report()


def api_urls() -> list[str]:
    """Every route of the API, with the demo's ids."""
    from portal.api.urls import urlpatterns
    from portal.models import (
        Candidate,
        Membership,
        OfferingPrice,
        UploadToken,
        Workload,
    )
    from portal.services.tokens import upload_token_create

    candidate = Candidate.objects.filter(evaluation_id=1).order_by("pk").first()
    workload = Workload.objects.order_by("pk").first()
    price = OfferingPrice.objects.order_by("pk").first()
    token = (
        UploadToken.objects.order_by("pk").first()
        or upload_token_create(
            candidate=candidate, created_by=get_user("procurement"), node_name="gpu02"
        )[0]
    )
    ids = {
        "evaluation_pk": 1,
        "candidate_pk": candidate.pk,
        "pk": 1,
        "offering_pk": price.offering_id,
        "price_pk": price.pk,
        "member_pk": Membership.objects.filter(evaluation_id=1).order_by("pk").first().pk,
        "item": "gpu_match",
        "token_pk": token.pk,
        "upload_pk": 1,
        "workload_pk": workload.pk,
    }
    urls = []
    for route in urlpatterns:
        names = re.findall(r"<(?:\w+:)?(\w+)>", str(route.pattern))
        if route.name == "api-not-found":
            continue
        kwargs = {name: ids[name] for name in names}
        if "workload" in route.name or "portfolio" in route.name:
            kwargs["evaluation_pk"] = workload.evaluation_id
        urls.append(reverse(route.name, kwargs=kwargs))
    return urls


def inconsistent_matrix() -> list[list[float]]:
    """Six dimensions compared so that they contradict each other (a > b > c, yet c > a)."""
    size = 6
    matrix = [[1.0] * size for _ in range(size)]
    for i, j, value in [(0, 1, 9.0), (1, 2, 9.0), (0, 2, 1 / 9)]:
        matrix[i][j], matrix[j][i] = value, 1 / value
    return matrix


def json_messages(body) -> list[str]:
    """The strings of an error answer (its messages), keys and codes aside."""
    if isinstance(body, dict):
        return [m for key, value in body.items() if key != "code" for m in json_messages(value)]
    if isinstance(body, list):
        return [m for value in body for m in json_messages(value)]
    return [body] if isinstance(body, str) else []


def test_the_api_answers_in_chinese(demo, settings):
    """The browsable API's pages (as the viewer and as procurement, who gets its forms) and the
    JSON errors: 400 with field messages and malformed bodies, 401, 403, 404, 405, 415, 429."""
    from portal.models import Candidate
    from portal.services.tokens import upload_token_create
    from scoring.types import DIMENSIONS

    # The weights' field names, listed as they are sent when an unknown one is refused.
    scanner = Scanner(codes=frozenset({*DIMENSIONS, "version"}))

    clients = {who: zh_client(who, password) for who, password, *_ in DEMO_USERS}
    urls = api_urls()
    assert len(urls) > 30
    for who in ("viewer", "procurement"):
        for url in urls:
            response = clients[who].get(url, HTTP_ACCEPT="text/html")
            if "text/html" in response["Content-Type"]:
                check_html(scanner, f"{who} {url} (browsable)", response.content.decode())
    evaluation = "/api/v1/evaluations/1/"
    candidate = Candidate.objects.filter(evaluation_id=1).order_by("pk").first()
    anonymous = Client(HTTP_ACCEPT_LANGUAGE=ZH)
    errors = [
        (anonymous, "get", evaluation, None),
        (clients["viewer"], "put", evaluation + "weights/", {"weights": {"cost": 100}}),
        (clients["viewer"], "get", "/api/v1/evaluations/999/", None),
        (clients["viewer"], "get", "/api/v1/nothing/", None),
        (clients["viewer"], "delete", "/api/v1/checklist/", None),
        (clients["procurement"], "put", evaluation + "weights/", {"cost": -5, "network": 105}),
        (clients["procurement"], "put", evaluation + "weights/", {"cost": 50}),
        (clients["procurement"], "put", evaluation + "weights/", {"cost": "x"}),
        (
            clients["procurement"],
            "post",
            evaluation + "weights/",
            {"matrix": inconsistent_matrix()},
        ),
        (clients["procurement"], "patch", evaluation, {"required_total_gpus": -1}),
        (clients["procurement"], "patch", evaluation, {"accepted_gpu_models": "abc"}),
        (clients["procurement"], "post", evaluation + "candidates/", {}),
        (clients["procurement"], "patch", "/api/v1/offerings/4/", {"mig_profile": "abc"}),
        (clients["procurement"], "patch", "/api/v1/offerings/4/", {"mig_profile": "5g.40gb"}),
        (clients["procurement"], "post", "/api/v1/vendors/", {"name": ""}),
        (clients["procurement"], "post", evaluation + "workloads/", {"name": ""}),
        (clients["procurement"], "put", f"{evaluation}candidates/{candidate.pk}/answers/x/", {}),
        (clients["manager"], "post", evaluation + "decision/", {}),
        (clients["engineer"], "post", "/api/v1/evidence/", {}),
    ]
    for client, method, url, data in errors:
        if data is None:
            response = getattr(client, method)(url)
        else:
            response = getattr(client, method)(
                url, data=json.dumps(data), content_type="application/json"
            )
        assert response.status_code >= 400, (method, url, response.status_code)
        for message in json_messages(response.json()):
            scanner.check(f"{method.upper()} {url} {response.status_code}", message)
    procurement = clients["procurement"]
    for body in ("{", '{"a": 1, "a": 2}', '{"a": NaN}', '{"a": 1e999}', "\udcff"):
        response = procurement.generic(
            "PATCH", evaluation, body.encode("utf-8", "surrogateescape"), "application/json"
        )
        assert response.status_code == 400, body
        scanner.check(f"PATCH {evaluation} {body!r}", response.json()["detail"])
    response = procurement.generic("PATCH", evaluation, b"<x/>", "application/xml")
    assert response.status_code == 415
    scanner.check("PATCH 415", response.json()["detail"])
    # Too many uploads with one upload token.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"evidence_upload": "1/min"},
    }
    _token, raw = upload_token_create(
        candidate=candidate, created_by=get_user("procurement"), node_name="gpu01"
    )
    collector = Client(HTTP_ACCEPT_LANGUAGE=ZH, HTTP_AUTHORIZATION=f"Bearer {raw}")
    statuses = []
    for _ in range(2):
        response = collector.post("/api/v1/evidence/", {})
        statuses.append(response.status_code)
        for message in json_messages(response.json()):
            scanner.check(f"POST /api/v1/evidence/ {response.status_code}", message)
    assert 429 in statuses, statuses
    assert not scanner.leaks, "English in the API's Chinese answers:\n" + scanner.report()


def get_user(username: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username)


def test_the_emails_are_written_in_chinese(scanner, settings, django_capture_on_commit_callbacks):
    """Each notification the portal sends, to members who chose Chinese for their e-mails."""
    from datetime import date

    from portal.models import (
        Candidate,
        DecisionRecord,
        EvidenceUpload,
        NotificationPreference,
        Offering,
        UploadStatus,
    )
    from portal.services import notifications

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.LANGUAGE_CODE = "en"
    for username, *_ in DEMO_USERS:
        user = get_user(username)
        user.email = f"{username}@example.com"
        user.save(update_fields=["email"])
        NotificationPreference.objects.update_or_create(user=user, defaults={"language": ZH})
    upload = EvidenceUpload.objects.order_by("pk").first()
    upload.status = UploadStatus.FAILED
    upload.error_code = "upload.nothing_parsed"
    upload.error_params = {
        "failures": [{"file": "x.txt", "detail": {"code": "file.empty", "params": {}}}]
    }
    upload.error = "Nothing in this upload could be parsed. x.txt: the file is empty"
    upload.uploaded_by = get_user("engineer")
    candidate = Candidate.objects.filter(evaluation_id=1).order_by("pk").first()
    record = DecisionRecord(
        evaluation=candidate.evaluation,
        candidate=candidate,
        decided_by=get_user("manager"),
        rationale="typed by the manager",
    )
    with django_capture_on_commit_callbacks(execute=True):
        sent = [
            notifications.notify_import_failed(upload=upload),
            notifications.notify_poc_deadline(
                evaluation=candidate.evaluation, candidate=candidate, deadline=date(2026, 12, 7)
            ),
            notifications.notify_decision_recorded(record=record),
        ]
        offering = candidate.offering
        Offering.objects.filter(pk=offering.pk).update(name=offering.name)
        sent.append(notifications.notify_catalogue_changed(offering=offering))
    assert all(sent[:3]), sent
    assert mail.outbox
    scanner.typed.append("typed by the manager")
    scanner._typed_re = re.compile(scanner._typed_re.pattern + "|typed by the manager")
    for message in mail.outbox:
        scanner.check(f"mail {message.subject}", f"{message.subject}\n{message.body}")
    assert not scanner.leaks, "English in Chinese e-mails:\n" + scanner.report()


def test_the_report_pdf_is_made_from_chinese_html(scanner):
    from portal.models import Evaluation
    from portal.services.reports import report_html

    for evaluation in Evaluation.objects.order_by("pk"):
        with translation.override(ZH):
            html = report_html(evaluation)
        check_html(scanner, f"report PDF {evaluation.pk}", html)
    assert not scanner.leaks, "English in the Chinese report PDF:\n" + scanner.report()


JS_CALL = re.compile(r"\b(n?gettext)\(\s*((?:\"(?:[^\"\\]|\\.)*\"\s*,?\s*)+)")
JS_STRING = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")


def test_the_javascript_shows_only_catalogued_text(client):
    """Every sentence the scripts in static/ show goes through gettext, and each has its Chinese
    in the djangojs catalogue; no other string literal reads as a sentence (a capital and a
    space, or a sentence's end: class names and event names do not)."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = ZH
    catalogue = client.get(reverse("javascript-catalog")).content.decode()
    translated = json.loads(re.search(r"const newcatalog = (\{.*?\});", catalogue, re.S)[1])
    untranslated, sentences = [], []
    for path in sorted((ROOT / "static" / "portal").glob("*.js")):
        source = re.sub(
            r"/\*.*?\*/|(?<![:\\])//[^\n]*", "", path.read_text(encoding="utf-8"), flags=re.S
        )
        for _name, args in JS_CALL.findall(source):
            # The msgid (a plural's singular): the catalogue's key.
            msgid = json.loads(f'"{JS_STRING.search(args)[1]}"')
            if msgid not in translated:
                untranslated.append(f"{path.name}: {msgid}")
        rest = re.sub(r"console\.\w+\([^;]*\);", "", JS_CALL.sub("", source))
        for double, single in JS_STRING.findall(rest):
            text = double or single
            if re.search(r"^[A-Z][a-z]+ \w|\w[.:!?…]$", text) and text != "use strict":
                sentences.append(f"{path.name}: {text}")
    assert untranslated == [], untranslated
    assert sentences == [], sentences


def test_every_api_view_is_named_and_described_in_the_catalogue():
    """Each API view's page name and description come from portal/api/docs.py, and the English
    description is the view's docstring (one text to keep up to date, checked here)."""
    from portal.api import docs
    from portal.api.urls import urlpatterns

    views = {
        route.callback.view_class
        for route in urlpatterns
        if getattr(route.callback, "view_class", None) is not None
    }
    assert len(views) > 30
    with translation.override("en"):
        for view in views:
            assert view.__name__ in docs.NAMES, view
            assert str(docs.DESCRIPTIONS[view.__name__]) == " ".join(view.__doc__.split()), view


def _form_data(client: Client, url: str, form_id: str) -> dict[str, str]:
    """The fields of the page's form ``form_id`` as the page fills them."""
    html = client.get(url).content.decode()
    start = html.index(f'id="{form_id}"')
    page = Page(html[html.rindex("<form", 0, start) :])
    return {name: value or "" for name, _kind, value in page.forms[0]["fields"]}


def test_contradicting_pairwise_comparisons_are_refused_in_chinese(demo):
    """An AHP matrix too inconsistent to use was refused with scoring's English sentence
    (consistency ratio, dimension codes); it is worded in the reader's language."""
    from portal.views.weights import PAIRS

    client = zh_client("procurement", "procure-gpus-2026")
    url = reverse("evaluation-weights", args=[1])
    data = {**_form_data(client, url, "ahp-form"), "ahp": "1"}
    data |= {f"{a}__{b}": "1" for a, b in PAIRS}
    data |= {"stability__network": "9", "network__storage": "9", "stability__storage": "1/9"}
    response = client.post(url, data)
    assert response.status_code == 422
    text = "\n".join(Page(response.content.decode()).lines)
    assert "两两比较之间的矛盾过大" in text and "稳定性与网络的比较" in text
    assert "consistency ratio" not in text and "stability" not in text


@pytest.mark.parametrize(
    ("profile", "chinese"),
    [("abc", "MIG 规格形如 3g.40gb"), ("5g.40gb", "上的 MIG 规格的计算切片数为 1, 2, 3, 4, 7")],
)
def test_a_wrong_mig_profile_is_refused_in_chinese(demo, profile, chinese):
    """The offering form showed scoring's English ("a MIG profile looks like …, got 'abc'")."""
    from portal.models import DeliveryForm, Offering

    offering = Offering.objects.filter(delivery_form=DeliveryForm.MIG).order_by("pk").first()
    client = zh_client("procurement", "procure-gpus-2026")
    url = reverse("offering-edit", args=[offering.pk])
    html = client.get(url).content.decode()
    fields = Page(html[html.index("<main") :]).forms[0]["fields"]
    data = {name: value or "" for name, _kind, value in fields} | {"mig_profile": profile}
    text = "\n".join(Page(client.post(url, data).content.decode()).lines)
    assert chinese in text
    assert "compute slices" not in text and "got " not in text


def test_the_stale_form_page_names_the_sign_in_fields_in_chinese(demo):
    visitor = Client(enforce_csrf_checks=True)
    visitor.cookies[settings.LANGUAGE_COOKIE_NAME] = ZH
    response = visitor.post(reverse("login"), {"username": "viewer", "password": "x"})
    text = "\n".join(Page(response.content.decode()).lines)
    assert "用户名" in text and "Username" not in text
