"""What a web or worker process loads on first use, loaded at start instead.

Django imports the URLconf (and with it every view module), builds the URL resolver of each
language, reads each language's message catalogue and compiles each template the first time
a request or task needs them: each gunicorn worker and each Celery process paid that (a few
hundred milliseconds) inside its first requests or its first import, where an engineer's
collector or the results warming was waiting. ``warm_up`` does it when the process starts.
It reads no database and opens no connection, so it may run before a fork.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.conf import settings
from django.template import TemplateDoesNotExist, TemplateSyntaxError
from django.template.loader import get_template
from django.urls import get_resolver, reverse
from django.utils import translation

logger = logging.getLogger(__name__)


def warm_up() -> list[str]:
    """Load the URLconf, each language's URL resolver and catalogue, and every project
    template; returns the names of the templates loaded."""
    get_resolver().url_patterns  # noqa: B018 - importing the URLconf imports every view
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            # The first reverse() in a language builds that language's resolver.
            reverse("healthz")
    loaded = []
    for directory in settings.TEMPLATES[0]["DIRS"]:
        root = Path(directory)
        for path in sorted(root.rglob("*.html")):
            name = path.relative_to(root).as_posix()
            try:
                get_template(name)
            except (TemplateDoesNotExist, TemplateSyntaxError):
                # A template that does not load fails its page as it would have; starting
                # the process must not.
                logger.exception("template %s did not load at start", name)
                continue
            loaded.append(name)
    return loaded
