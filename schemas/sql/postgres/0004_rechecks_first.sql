-- Workers take turns between two queues of due operations: new ones (attempts = 0, the
-- operation_fresh_due index) and re-checks of operations a worker has run before, such as a
-- waiting stage that a shoot event made due. Most claims take re-checks first, so that an
-- operation whose shoot is ready finishes while a burst of new operations is still starting.
-- This partial index finds the re-checks without scanning past the new ones.
CREATE INDEX IF NOT EXISTS operation_recheck_due ON operation (next_run_at)
    WHERE state = 'IN_PROGRESS' AND attempts > 0;
