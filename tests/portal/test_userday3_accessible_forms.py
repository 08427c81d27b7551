"""Screen readers: every form control of the pages a working day goes through has a name, and
what its ``aria-describedby`` / ``aria-labelledby`` point to is on the page (the questionnaire's
help texts were announced for no field: the inputs named ``…_helptext`` ids the page did not
have; the weight sliders were named by their own number box, so read out as "20.0")."""

import re
from html.parser import HTMLParser

import pytest

pytestmark = pytest.mark.django_db

PAGES = [
    ("procurement", "/evaluations/new/"),
    ("procurement", "/evaluations/1/edit/"),
    ("procurement", "/evaluations/1/weights/"),
    ("procurement", "/evaluations/1/candidates/add/"),
    ("procurement", "/evaluations/1/candidates/1/questionnaire/"),
    ("procurement", "/evaluations/1/candidates/1/tokens/"),
    ("procurement", "/offerings/new/"),
    ("procurement", "/vendors/new/"),
    ("manager", "/evaluations/1/weights/"),
    ("manager", "/evaluations/1/decision/"),
    ("engineer", "/evaluations/1/candidates/1/evidence/"),
]


class _Controls(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: dict[str, tuple[str, dict]] = {}
        self.controls: list[dict] = []
        self.label_for: set[str] = set()
        self.labels: dict[str, str] = {}
        self._label: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids[attrs["id"]] = (tag, attrs)
        if tag == "label":
            self._label = attrs.get("id") or ""
            self._text = []
            if attrs.get("for"):
                self.label_for.add(attrs["for"])
        # A control with the ``hidden`` attribute is shown to no one, screen readers included
        # (the key a creating page carries: forms.sent_once_field).
        shown = attrs.get("type") != "hidden" and "hidden" not in attrs
        if tag in ("input", "select", "textarea") and shown:
            self.controls.append({"tag": tag, "in_label": self._label is not None, **attrs})

    def handle_endtag(self, tag):
        if tag == "label" and self._label is not None:
            if self._label:
                self.labels[self._label] = "".join(self._text).strip()
            self._label = None

    def handle_data(self, data):
        if self._label is not None:
            self._text.append(data)


@pytest.mark.parametrize(("role", "path"), PAGES)
def test_every_control_has_a_name_and_its_references_exist(as_role, role, path):
    response = as_role(role).get(path)
    assert response.status_code == 200
    page = _Controls()
    page.feed(response.content.decode())
    problems = []
    for control in page.controls:
        name = control.get("name") or control.get("id")
        for attr in ("aria-describedby", "aria-labelledby"):
            for ref in (control.get(attr) or "").split():
                if ref not in page.ids:
                    problems.append(f"{name}: {attr} names #{ref}, not on the page")
        for ref in (control.get("aria-labelledby") or "").split():
            tag, _attrs = page.ids.get(ref, ("", {}))
            if tag in ("input", "select", "textarea"):
                problems.append(f"{name}: named by the control #{ref} (its value is read out)")
        named = (
            control["in_label"]
            or control.get("id") in page.label_for
            or control.get("aria-label")
            or control.get("aria-labelledby")
            or control.get("title")
        )
        if not named:
            problems.append(f"{name}: no label")
    assert problems == []


def test_the_weight_sliders_are_named_by_their_dimension(as_role):
    html = as_role("manager").get("/evaluations/1/weights/").content.decode()
    page = _Controls()
    page.feed(html)
    sliders = [c for c in page.controls if c.get("type") == "range"]
    assert len(sliders) == 6
    names = {page.labels.get(s["aria-labelledby"]) for s in sliders}
    assert names == {"Stability", "Network", "Storage", "Security", "Cost", "Support"}


def test_the_questionnaire_help_texts_describe_their_inputs(as_role):
    html = as_role("procurement").get("/evaluations/1/candidates/1/questionnaire/").content
    html = html.decode()
    claim = re.search(r'<[^>]*name="item-1-claim"[^>]*>', html).group(0)
    described = re.search(r'aria-describedby="([^"]+)"', claim).group(1)
    help_text = re.search(rf'<small[^>]*id="{described}"[^>]*>([^<]*)<', html).group(1)
    assert "exact GPU model" in help_text
