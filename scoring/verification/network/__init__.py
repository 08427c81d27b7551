"""Checklist item 3 (fabric type, port rate and state) and the collectives' bus bandwidth checks.

``fabric``: the ports ibstat lists (or perftest's rate) against the claimed fabric;
``bounds``: what a collective run of the declared system should reach and can reach at most;
``runs``: which nccl-tests runs are usable, and why the others are set aside;
``collective``: the verdict on one collective's bus bandwidth (``verify_collective``).
"""

from .bounds import (
    ALL_GATHER,
    ALL_REDUCE,
    ALLTOALL,
    COLLECTIVES,
    IMPLAUSIBLE_MARGIN,
    NVLS_CEILING_FACTOR,
)
from .collective import (
    BUSBW_CONTRADICTED_BELOW,
    BUSBW_VERIFIED_FROM,
    SCOPE_MULTI_NODE,
    SCOPE_ONE_NODE,
    CollectiveCheck,
    verify_busbw,
    verify_collective,
)
from .fabric import (
    PERFTEST_CONTRADICTS_BELOW,
    PERFTEST_SUPPORTS_FROM,
    left_out_text,
    rail_layers,
    verify_fabric,
)
from .runs import PEAK_MIN_BYTES, candidate_in_nvlink_domain

__all__ = [
    "ALLTOALL",
    "ALL_GATHER",
    "ALL_REDUCE",
    "BUSBW_CONTRADICTED_BELOW",
    "BUSBW_VERIFIED_FROM",
    "COLLECTIVES",
    "IMPLAUSIBLE_MARGIN",
    "NVLS_CEILING_FACTOR",
    "PEAK_MIN_BYTES",
    "PERFTEST_CONTRADICTS_BELOW",
    "PERFTEST_SUPPORTS_FROM",
    "SCOPE_MULTI_NODE",
    "SCOPE_ONE_NODE",
    "CollectiveCheck",
    "candidate_in_nvlink_domain",
    "left_out_text",
    "rail_layers",
    "verify_busbw",
    "verify_collective",
    "verify_fabric",
]
