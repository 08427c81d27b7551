"""The upload id the benches' no-op import tasks carry: no upload has it, so the import's
claim updates nothing and the task returns at once (a floor's task, and how a worker's or a
profile's figures tell floor tasks from real imports)."""

NOOP_UPLOAD_ID = 10**12
