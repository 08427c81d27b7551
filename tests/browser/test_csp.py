"""The Content-Security-Policy blocks nothing the portal needs: charts (Plotly), htmx, the
language switch, the token page's script, Swagger UI and Redoc all work under it."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

VIOLATIONS = """() => window.__cspViolations || []"""
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline') + ' '
    + (e.sample || ''));
});
"""


def _no_violations(portal, *, expected_blocked: str | None = None) -> None:
    """No CSP violation and no JavaScript error, except the blocking of ``expected_blocked``
    (a URL prefix the policy must keep out, such as a CDN logo)."""
    violations = portal.page.evaluate(VIOLATIONS)
    errors = portal.js_errors
    if expected_blocked:
        violations = [v for v in violations if expected_blocked not in v]
        errors = [e for e in errors if expected_blocked not in e]
    assert violations == []
    assert errors == []


def test_pages_work_under_the_csp(portal):
    page = portal.page
    page.add_init_script(RECORD_VIOLATIONS)
    portal.login("procurement")
    response = portal.goto("/evaluations/1/")
    assert "script-src" in response.headers["content-security-policy"]
    portal.wait_for_charts()
    _no_violations(portal)

    # The weights page: charts, htmx and the sliders' inline handlers (allowed by hash).
    portal.goto("/evaluations/1/weights/")
    portal.wait_for_charts()
    slider = page.locator("#weights-form input[type=range]").first
    slider.fill("7")
    expect(page.locator("#weights-form input.weight-number").first).to_have_value("7")
    _no_violations(portal)

    # The language switch submits its form from an inline onchange handler.
    with portal.navigation():
        page.select_option("#language-select", "zh-hans")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    with portal.navigation():
        page.select_option("#language-select", "en")
    _no_violations(portal)


def test_the_token_page_script_runs_with_its_nonce(portal):
    page = portal.page
    page.add_init_script(RECORD_VIOLATIONS)
    portal.login("procurement")
    portal.goto("/evaluations/1/candidates/1/tokens/")
    with portal.navigation():
        page.get_by_role("button", name="Create token").click()
    # The script adds copy buttons; without it (blocked) there would be none.
    expect(page.locator("button[data-copy-target]").first).to_be_visible()
    _no_violations(portal)


def test_swagger_and_redoc_render_under_the_csp(portal):
    page = portal.page
    page.add_init_script(RECORD_VIOLATIONS)
    portal.login("viewer")
    portal.goto("/api/schema/swagger/")
    expect(page.locator(".swagger-ui .opblock").first).to_be_visible(timeout=30_000)
    _no_violations(portal)
    portal.goto("/api/schema/redoc/")
    expect(page.locator("#redoc-container h1").first).to_contain_text(
        "GPU Procurement Portal API", timeout=30_000
    )
    # Redoc's "API docs by Redocly" logo comes from its CDN: the policy keeps it out.
    _no_violations(portal, expected_blocked="https://cdn.redoc.ly/")
