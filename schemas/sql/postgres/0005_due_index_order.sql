-- A claim takes the soonest due operation: ORDER BY next_run_at, id LIMIT n. With indexes on
-- next_run_at alone, PostgreSQL read every due row of the queue and sorted them to find the
-- first, so a burst of a thousand new operations cost a thousand-row sort per claim. With id in
-- the index, the scan yields rows in claim order and stops at the first one it can lock.
-- (SQLite's indexes end in the rowid, its claim order: they need no change.)
DROP INDEX IF EXISTS operation_fresh_due;
CREATE INDEX operation_fresh_due ON operation (next_run_at, id)
    WHERE state = 'IN_PROGRESS' AND attempts = 0;
DROP INDEX IF EXISTS operation_recheck_due;
CREATE INDEX operation_recheck_due ON operation (next_run_at, id)
    WHERE state = 'IN_PROGRESS' AND attempts > 0;
