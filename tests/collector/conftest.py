"""The fake portal of test_collect.py, for the other collector tests too."""

from .test_collect import portal  # noqa: F401 (a fixture)
