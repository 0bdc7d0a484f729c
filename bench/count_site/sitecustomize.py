"""Loaded by Python at start-up when this directory is on PYTHONPATH (`bench.turn_counts` puts it there
for the worker and gateway processes it starts): tallies the Redis commands the process sends into
`$DEPUTY_BENCH_TALLY_DIR/<pid>.json` (`deputy.testing.redis_sends`)."""

import os
from pathlib import Path

_where = os.environ.get("DEPUTY_BENCH_TALLY_DIR")
if _where:
    from deputy.testing.redis_sends import tally_sends, write_tally_every

    write_tally_every(tally_sends(), Path(_where) / f"{os.getpid()}.json")
