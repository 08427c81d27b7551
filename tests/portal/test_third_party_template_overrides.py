"""The project overrides a few of DRF's and django-filter's templates only to put their words
through the catalogue (templates/rest_framework/, templates/django_filters/). Each override was
made from the package's template as pinned in requirements.txt; when an upgrade changes that
template, this fails so that the override is made again from the new one, instead of silently
serving the old page's markup with the new package."""

import hashlib
from pathlib import Path

import django_filters
import pytest
import rest_framework

ROOT = Path(__file__).resolve().parents[2] / "templates"
PACKAGES = {"rest_framework": rest_framework, "django_filters": django_filters}
# The sha256 of each package template an override was made from (djangorestframework 3.18.3,
# django-filter 26.2).
MADE_FROM = {
    "django_filters/rest_framework/form.html": (
        "2a8546b5ecc8fa95a70b5f23a422b2defb9f476dd02e95d7a280a09841578c00"
    ),
    "rest_framework/base.html": "4116acaa2de3ac9a38a5bd8219e6163a4113a4f5b6f618893835199fe22947f1",
    "rest_framework/filters/base.html": (
        "3a30486dddbda2703647e8949a4c2b957c3437908922c53514ea6c109f992518"
    ),
    "rest_framework/pagination/numbers.html": (
        "bcdd61774b4fdc753bca22889d26240b5a939facaefdb4373a7d5c54f95c1f01"
    ),
    "rest_framework/pagination/previous_and_next.html": (
        "85ff44e9ecd782017f1c2e5ac64ec92288e42b5f159832fe786780334c5e5f3e"
    ),
    "rest_framework/raw_data_form.html": (
        "fbde8ede51d33c0d333f7cead7dc687d8bf34fca0f6e68211d8e43bcffa56883"
    ),
}


def _overrides() -> list[str]:
    return sorted(
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.html")
    )


def test_every_override_says_what_it_was_made_from():
    assert _overrides() == sorted(MADE_FROM)


@pytest.mark.parametrize("name", sorted(MADE_FROM))
def test_the_package_template_is_still_the_one_the_override_was_made_from(name):
    package = PACKAGES[name.split("/", 1)[0]]
    upstream = Path(package.__file__).parent / "templates" / name
    assert upstream.is_file(), f"{name} is no longer a template of {package.__name__}"
    digest = hashlib.sha256(upstream.read_bytes()).hexdigest()
    assert digest == MADE_FROM[name], (
        f"{package.__name__} changed {name}: make templates/{name} again from the new one "
        "(its words through the catalogue) and record the new digest here"
    )
