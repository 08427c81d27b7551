"""The API's JSON parser with limits: body size and nesting depth, no duplicate keys and no
number beyond a float (a 400, never a 500)."""

import json
import math

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def json_depth(value) -> int:
    """The nesting depth of a parsed JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in children)
    return deepest


class LimitedJSONParser(JSONParser):
    """JSONParser that refuses bodies above API_JSON_MAX_BYTES and values nested deeper than
    API_JSON_MAX_DEPTH with a 400 and a message saying which limit."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.API_JSON_MAX_BYTES
        request = (parser_context or {}).get("request")
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0) if request else 0
        except ValueError:
            declared = 0
        too_large = _("The JSON body is larger than the limit of %(limit)s bytes.") % {
            "limit": limit
        }
        if declared > limit:
            raise ParseError(too_large)
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(too_large)
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        max_depth = settings.API_JSON_MAX_DEPTH
        too_deep = _("The JSON body is nested deeper than %(depth)s levels.") % {"depth": max_depth}
        try:
            data = json.loads(
                raw.decode(encoding),
                parse_constant=_no_constant,
                parse_float=_finite_float,
                object_pairs_hook=_unique_keys,
            )
        except RecursionError:
            raise ParseError(too_deep) from None
        except json.JSONDecodeError as exc:
            # Python's own reason ("Expecting ',' delimiter") is English only: where it is.
            raise ParseError(
                _("The body is not valid JSON (line %(line)s, column %(column)s).")
                % {"line": exc.lineno, "column": exc.colno}
            ) from None
        except UnicodeDecodeError:
            raise ParseError(
                _("The body is not %(encoding)s text.") % {"encoding": encoding.upper()}
            ) from None
        except ValueError as exc:
            raise ParseError(_("JSON parse error - %(error)s") % {"error": exc}) from None
        if json_depth(data) > max_depth:
            raise ParseError(too_deep)
        return data


def _no_constant(name: str):
    # NaN and Infinity are not JSON: DRF's own parser refuses them too (strict mode).
    raise ValueError(_("%(name)s is not valid JSON") % {"name": name})


def _finite_float(text: str) -> float:
    # 1e400 would silently become Infinity, which no field can store.
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(_("%(number)s is too large a number") % {"number": text[:40]})
    # 1e-400 would silently become 0.0 (a budget of 0 instead of a refusal).
    if value == 0 and any(digit in "123456789" for digit in text.lower().partition("e")[0]):
        raise ValueError(_("%(number)s is too small a number") % {"number": text[:40]})
    return value


def _unique_keys(pairs: list) -> dict:
    # {"a": 1, "a": 2} is valid JSON that means two things: refuse it instead of keeping one.
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(_("duplicate key %(key)s") % {"key": repr(key[:100])})
        out[key] = value
    return out
