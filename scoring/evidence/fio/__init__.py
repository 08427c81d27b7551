"""Parser for ``fio`` results: bandwidth (MB/s) and IOPS per direction, from json or text.

Reads ``--output-format=json`` (and ``json+``), the normal text report, and files where both
are mixed (``--output-format=normal,json`` prints them one after another).

Units: the metrics are in MB/s = 10**6 bytes per second (decimal megabytes). fio's JSON gives
``bw_bytes`` (bytes/s; fio >= 3) and ``bw`` (KiB/s = 1024 bytes/s; the only figure in fio 2.x).
fio 3 text prints ``BW=1063MiB/s (1115MB/s)``: the decimal figure in parentheses is used when
shown, otherwise the binary one is converted (1 MiB/s = 1.048576 MB/s). fio 2.x text
(``bw=104857KB/s``, ``aggrb=``) means 1024-based units by its own default (kb_base=1024) and
is converted as such. Text IOPS are rounded by fio ("IOPS=14.3k"); JSON IOPS are exact.

Metrics (``ParseResult.metrics``):

- ``read_bw_mbyte_s``, ``write_bw_mbyte_s`` (float|None), ``read_iops``, ``write_iops``
  (float|None): summed over the jobs of a reporting group (or the group_reporting figure);
  None when that direction did not run. With several groups (``stonewall``/``new_group`` run
  one after another, so summing them would double count), each headline is the best group's.
- ``read_clat_mean_us``, ``write_clat_mean_us`` (float|None): mean completion latency (JSON:
  weighted by I/O count; text: only when one job block reports that direction).
- ``groups``: ``[{"groupid", "jobs", "read_bw_mbyte_s", "write_bw_mbyte_s", "read_iops",
  "write_iops"}]``; ``job_count``; ``jobnames``; ``rw`` (distinct rw modes seen);
- ``jobs``: one row per job definition (name and group), in order: ``{"name", "groupid",
  "rw", "bs_bytes", "iodepth", "numjobs", "read_bw_mbyte_s", "write_bw_mbyte_s",
  "read_iops", "write_iops"}``. ``rw`` is fio's mode ("read", "randwrite"...); ``bs_bytes``
  the block size in bytes (the write size for write-only modes; fio's k/M are 1024-based);
  ``iodepth`` and ``numjobs`` as set (1 when not shown; without an iodepth option the depth
  fio reports with the latency figures is used: JSON ``latency_depth``, text
  ``latency : ... depth=N``, the job's iodepth unless a latency target was set; fio 2.x
  JSON lists no options at all, so its ``bs_bytes`` is None). Figures are summed over the job's
  processes; a direction the job did not run is 0 (a write-only job reads 0), the same in the
  JSON and the text forms. Fields fio did not print are None. ``error``: the first non-zero
  error code (an errno) a process of the job ended with, else None: the figures then cover
  only the I/O done before the failure, and verification does not judge a claim by them.
  ``fio_version``; ``format`` ("json", "normal", "normal+json" or "terse"); ``errors``
  (jobs with a non-zero error code).
- ``--output-format=terse`` (``--minimal``) versions 3 and 4 are read too: bandwidth (KiB/s)
  and IOPS per direction, the clat mean; the lines carry no options, so a terse job's
  ``rw`` and ``bs_bytes`` are None (``iodepth`` and ``numjobs`` are 1, as for any job whose
  options were not shown) unless fio's job header line for it ("<job>: (g=0): rw=read,
  bs=(R) 128KiB-128KiB, ..., ioengine=psync, iodepth=1", printed on the same stdout) is in the
  file: its rw, block size, ioengine and iodepth are then read. A file with the normal report as
  well is read from the normal report.

A paste that indents all of fio's column-0 lines alike is read without that indent, and a
figure a person set in markdown bold ("write: **IOPS=111k**, ...") without the asterisks.

A run that reported no figures but printed fio's own error lines (``fio: pid=N, err=5/file:...,
func=io_u error, error=Input/output error``, ``fio: io_u error on file ...``, a job line
``err= 5 (..., error=...)``) is recognised from those lines alone and fails with an error
quoting the first of them that names the failed call (``fio.failed``).

A log captured through a relay that puts the same text before every line (a CI runner's
``[node-3] ``, a logging framework's ``2026-11-02T10:11:12.345Z INFO  ``, ``stdout: ``,
``kubectl logs --prefix``) is read without that prefix (``base.strip_line_prefix``): the text
before fio's own first token (``{``, ``<job>: (g=0)``, ``Run status group``, ``READ: bw=``...)
that the large majority of lines share. Lines that share none are read as they are.

Facts: ``read_bw_mbyte_s``/``write_bw_mbyte_s`` (unit "MB/s") and ``read_iops``/``write_iops``
(unit "IOPS") for the headline figures.
"""

from .common import _FIRST_TOKEN_RE, KIND
from .report import detect, parse

__all__ = ["KIND", "_FIRST_TOKEN_RE", "detect", "parse"]
