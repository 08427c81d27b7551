"""Browser fixtures: Debian's Chromium driven by Playwright against pytest-django's live server.

Every test gets the demo data set (committed, so the live server thread sees it), a page whose
JavaScript errors are collected, and a screenshot in test-artifacts/screenshots/ when it ends,
whether it passed or not: the whole page when it failed, the visible part when it passed (a
full-page capture relays out the page at its full height, which costs up to seconds on a tall
page with charts: the Redoc page took 12 s).
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.contrib.contenttypes.models import ContentType
from playwright.sync_api import ConsoleMessage, Page, expect

from ..demo_snapshot import restore as demo_restore

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# setup_demo's logins: username -> password.
PASSWORDS = {
    "procurement": "procure-gpus-2026",
    "manager": "decide-gpus-2026",
    "engineer": "measure-gpus-2026",
    "viewer": "view-gpus-2026",
}
EVALUATION_NAME = "Pre-train on 64 GPUs for 30 days"
expect.set_options(timeout=10_000)

CHARTS_RENDERED = """() => {
  const charts = [...document.querySelectorAll('[data-chart]')];
  return charts.length > 0 && charts.every((el) => el.querySelector('.main-svg'));
}"""


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    # Debian's Chromium, never a downloaded one (`playwright install` is not used here).
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    # A fixed Accept-Language: the portal picks its language from it until a user switches.
    return {
        **browser_context_args,
        "locale": "en-US",
        "timezone_id": "UTC",
        "viewport": {"width": 1366, "height": 900},
    }


@pytest.fixture
def demo(transactional_db, demo_snapshot):
    """The demo data set and logins (restored from the run's copy), committed for the live
    server."""
    demo_restore(demo_snapshot)
    yield
    ContentType.objects.clear_cache()


@dataclass
class Portal:
    """The page under test plus the few steps every test repeats."""

    page: Page
    base_url: str
    test_name: str
    js_errors: list[str] = field(default_factory=list)
    saved: set[str] = field(default_factory=set)  # screenshot names taken so far

    def url(self, path: str) -> str:
        return self.base_url + path

    def navigation(self):
        """Wait for the navigation a click starts; deferred scripts have run when it returns."""
        return self.page.expect_navigation(wait_until="domcontentloaded")

    def goto(self, path: str):
        response = self.page.goto(self.url(path), wait_until="domcontentloaded")
        assert response is not None and response.ok, f"GET {path}: {response and response.status}"
        return response

    def login(self, username: str) -> None:
        self.goto("/accounts/login/")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", PASSWORDS[username])
        with self.navigation():
            self.page.click("main button[type=submit]")
        expect(self.page.locator("header.topbar .who")).to_be_visible()

    def logout(self) -> None:
        with self.navigation():
            self.page.click("header.topbar form[action$='/accounts/logout/'] button")
        expect(self.page.locator("#id_username")).to_be_visible()

    def wait_for_charts(self, minimum: int = 1) -> int:
        """Wait until every [data-chart] holds a drawn Plotly figure; returns how many."""
        self.page.wait_for_function(CHARTS_RENDERED, timeout=20_000)
        drawn = self.page.locator(".js-plotly-plot .main-svg").count()
        charts = self.page.locator("[data-chart]").count()
        assert drawn > 0
        assert self.page.locator("[data-chart].js-plotly-plot").count() == charts >= minimum
        return charts

    def assert_no_js_errors(self) -> None:
        assert self.js_errors == [], self.js_errors

    def screenshot(self, suffix: str = "", *, full_page: bool = True) -> None:
        """A screenshot: test-artifacts/screenshots/<test name>[-<suffix>].jpg, the whole page
        unless ``full_page`` is false. JPEG: a tall page encodes several times faster than as
        PNG, and these are for looking at."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = "-".join(part for part in (self.test_name, suffix) if part)
        name = re.sub(r"[^\w.-]+", "-", name).strip("-")
        self.page.screenshot(
            path=str(SCREENSHOTS / f"{name}.jpg"), full_page=full_page, type="jpeg", quality=70
        )
        self.saved.add(name)

    def closing_screenshot(self, *, failed: bool) -> None:
        """The page as the test left it: the whole page after a failure; after a pass the
        visible part, unless the test's own last screenshot already has the name."""
        if failed:
            self.screenshot()
        elif re.sub(r"[^\w.-]+", "-", self.test_name).strip("-") not in self.saved:
            self.screenshot(full_page=False)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # Each phase's report on the item, for the portal fixture's closing screenshot.
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def _is_noise(message: ConsoleMessage) -> bool:
    return message.location.get("url", "").endswith("/favicon.ico")


@pytest.fixture
def portal(page: Page, live_server, demo, request) -> Portal:
    # Generous: the suite shares two cores with the database, the worker and other test runs.
    page.set_default_timeout(15_000)
    page.set_default_navigation_timeout(30_000)
    portal = Portal(page=page, base_url=live_server.url, test_name=request.node.originalname)
    page.on("pageerror", lambda exc: portal.js_errors.append(f"uncaught: {exc}"))
    page.on(
        "console",
        lambda m: m.type == "error" and not _is_noise(m) and portal.js_errors.append(m.text),
    )
    yield portal
    # Taken whether the test passed or not: the last state of the page is the useful one.
    call = getattr(request.node, "report_call", None)
    portal.closing_screenshot(failed=call is None or call.failed)


# Every title of every drawn chart against every other text of the same chart (tick labels,
# bar labels, legend entries, other titles): the pairs whose boxes cross, and titles that run
# past the edge of their figure (plotly never wraps a title; the page would clip it).
CHART_TEXT_CLASHES = """() => {
  const TITLES = '.gtitle, .annotation-text, .g-xtitle text, .g-ytitle text, '
    + '.g-x2title text, .g-y2title text';
  const LABELS = '.bartext, .xtick text, .ytick text, .x2tick text, .y2tick text, '
    + '.legendtext, .textpoint text';
  const box = (el) => el.getBoundingClientRect();
  const crosses = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const clashes = [];
  document.querySelectorAll('[data-chart].js-plotly-plot').forEach((chart) => {
    const name = chart.getAttribute('data-chart');
    const svg = box(chart.querySelector('.main-svg'));
    const visible = (el) => { const b = box(el); return b.width > 0 && b.height > 0; };
    const titles = [...chart.querySelectorAll(TITLES)].filter(visible);
    const labels = [...chart.querySelectorAll(LABELS)].filter(visible);
    titles.forEach((title, n) => {
      const t = box(title);
      if (t.left < svg.left - 1 || t.right > svg.right + 1) {
        clashes.push(`${name}: "${title.textContent}" runs past the figure's edge`);
      }
      [...titles.slice(n + 1), ...labels].forEach((other) => {
        if (crosses(t, box(other))) {
          clashes.push(`${name}: "${title.textContent}" overlaps "${other.textContent}"`);
        }
      });
    });
  });
  return clashes;
}"""


# The user's-day walks (issue 14's proof) run in both languages and at both sizes. Each walk
# takes one of two pairings of language with size, and the walks between them take both, so
# every language meets every size in some walk at half the cost of the full cross product
# (the walks are the suite's slowest tests; test_phone also fits every page of two roles to
# a phone in both languages).
WALK_LANGUAGES = ("en", "zh-hans")
WALK_SIZES = {"desktop": (1440, 900), "phone": (390, 844)}
WALK_PAIRINGS = (
    (("en", "desktop"), ("zh-hans", "phone")),
    (("en", "phone"), ("zh-hans", "desktop")),
)


def walk_in_both_languages_and_sizes(pairing: int):
    """Parametrize a walk over WALK_PAIRINGS[pairing]: both languages, both sizes."""
    return pytest.mark.parametrize(("language", "size"), WALK_PAIRINGS[pairing])


@dataclass
class Walk:
    """One walk through the portal in one language at one size. ``check`` runs on every page it
    visits: a screenshot per step, no horizontal scrolling on a phone, and on Chinese pages no raw
    choice code or known English label (test_chinese's lists)."""

    portal: Portal
    language: str
    size: str
    name: str
    steps: list[str] = field(default_factory=list)

    @property
    def page(self) -> Page:
        return self.portal.page

    @property
    def width(self) -> int:
        return WALK_SIZES[self.size][0]

    def text(self, en: str, zh: str) -> str:
        """What the page says, in the walk's language."""
        return en if self.language == "en" else zh

    def start(self, username: str) -> None:
        width, height = WALK_SIZES[self.size]
        self.page.set_viewport_size({"width": width, "height": height})
        # The language cookie before signing in: every page, the login's included, is in it.
        self.page.context.add_cookies(
            [{"name": "django_language", "value": self.language, "url": self.portal.base_url}]
        )
        # Portal.login's steps, with the login page checked like every other page.
        self.portal.goto("/accounts/login/")
        expect(self.page.locator("html")).to_have_attribute("lang", self.language)
        self.check("login")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", PASSWORDS[username])
        with self.portal.navigation():
            self.page.click("main button[type=submit]")
        expect(self.page.locator("header.topbar .who")).to_be_visible()

    def screenshot(self, step: str) -> None:
        """test-artifacts/screenshots/<test>-<language>-<size>-<step>.jpg, the whole page."""
        self.portal.screenshot(f"{self.language}-{self.size}-{step}")

    def done(self) -> None:
        """The walk passed: leave the last page, so that the portal fixture's closing screenshot
        (kept for a failure's last state) costs nothing."""
        self.portal.assert_no_js_errors()
        self.page.goto("about:blank")

    def check(self, step: str) -> None:
        from .test_chinese import ENGLISH, RAW_CODES

        self.steps.append(step)
        path = self.page.url.removeprefix(self.portal.base_url)
        self.screenshot(f"{len(self.steps):02d}-{step}")
        if self.size == "phone":
            scroll_width = self.page.evaluate("document.documentElement.scrollWidth")
            assert scroll_width <= self.width, f"{step} ({path}): {scroll_width} px wide"
        if self.language != "en":
            text = self.page.evaluate("() => document.querySelector('main').innerText")
            assert sorted(set(RAW_CODES.findall(text))) == [], f"{step} ({path}): raw codes"
            english = [label for label in ENGLISH if label in text]
            assert english == [], f"{step} ({path}): English labels {english}"


@pytest.fixture
def walk(portal, language, size, request) -> Walk:
    return Walk(portal=portal, language=language, size=size, name=request.node.originalname)
