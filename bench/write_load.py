#!/usr/bin/env python3
"""Commits RATE small writes per second to a kprov SQLite store until it is stopped: what
running workers do to a store (a claim bumps an operation's attempts), so that
bench/graphql.sh can measure the API while the store changes under it. Each write changes a
row (an UPDATE that leaves the values as they were commits nothing) and no answer the API
gives.

    bench/write_load.py DB_FILE RATE
"""
import random
import sqlite3
import sys
import time


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    path, rate = sys.argv[1], float(sys.argv[2])
    if rate <= 0:
        sys.exit("write_load.py: RATE must be positive")
    db = sqlite3.connect(path, isolation_level=None, timeout=5)
    rows = db.execute("SELECT max(rowid) FROM operation").fetchone()[0] or 0
    if rows == 0:
        sys.exit("write_load.py: the store has no operations")
    interval = 1.0 / rate
    due = time.monotonic()
    while True:
        db.execute("UPDATE operation SET attempts = attempts + 1 WHERE rowid = ?",
                   (random.randint(1, rows),))
        due += interval
        time.sleep(max(0.0, due - time.monotonic()))


if __name__ == "__main__":
    main()
