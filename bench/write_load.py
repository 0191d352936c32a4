#!/usr/bin/env python3
"""Commits RATE small writes per second to a kprov SQLite store until it is stopped, so that
bench/graphql.sh can measure the API while the store changes under it: each write stamps a
random operation's last_transition, as a worker's pass does. That moves the operation's
runtime's version (migration 0006), so serve's kept answers about that runtime are retired,
while the answers the API gives stay the same (it does not show last_transition).

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
        db.execute("UPDATE operation SET last_transition = "
                   "strftime('%Y-%m-%d %H:%M:%f000', 'now') WHERE rowid = ?",
                   (random.randint(1, rows),))
        due += interval
        time.sleep(max(0.0, due - time.monotonic()))


if __name__ == "__main__":
    main()
