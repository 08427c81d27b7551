"""The nccl-tests parser (kind ``nccl_tests``): detection, parsing and the figures it reads.

``parser``: ``detect``, ``parse``, ``parse_lines`` and the metrics they return (documented
there); ``formats``: the kind's name and the line patterns; ``scanner``: the one pass over a
log's lines; ``table``: a table's header and rows; ``runs``: what each table sums up to;
``inference``: the collective an unnamed table fits; ``net``: the network transports NCCL names;
``json_report``: the JSON report (``-J``), read through the table it stands for.
"""

from .formats import KIND
from .parser import detect, iter_lines, parse, parse_lines

__all__ = ["KIND", "detect", "iter_lines", "parse", "parse_lines"]
