"""Phones: a table's text wraps between words. On a 390 px screen the candidate page's "Why each
score" tables broke their inputs inside words ("availabil / ity", "commit / ments", "hardwar / e"),
and the History its changes ("stabil / ity"): the small print and the lists of a cell could break
anywhere, so the column shrank to a few letters instead of the table scrolling in its own box."""

import pytest

pytestmark = pytest.mark.browser

# Latin words of four letters or more in table cells, drawn on more than one line.
SPLIT_WORDS = """(selector) => {
  const split = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/[A-Za-z]{4,}/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) split.push(match[0]);
      }
    }
  }
  return [...new Set(split)].slice(0, 10);
}"""


@pytest.mark.parametrize(
    "path",
    ["/evaluations/1/candidates/1/", "/evaluations/1/candidates/3/", "/evaluations/1/history/"],
)
def test_score_explanations_wrap_between_words_on_a_phone(portal, path):
    page = portal.page
    page.set_viewport_size({"width": 390, "height": 844})
    portal.login("manager")
    portal.goto(path)
    page.evaluate("document.querySelectorAll('details.dimension').forEach((d) => d.open = true)")
    split = page.evaluate(SPLIT_WORDS, "main table td")
    if split:
        portal.screenshot("split-words")
    assert split == []
