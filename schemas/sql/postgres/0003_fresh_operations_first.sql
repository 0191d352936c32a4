-- Workers claim operations that no worker has claimed yet (attempts = 0) before re-checks that
-- fell due earlier, so a new operation starts at once however long the queue of waiting ones is.
-- This partial index finds them without scanning the due queue.
CREATE INDEX IF NOT EXISTS operation_fresh_due ON operation (next_run_at)
    WHERE state = 'IN_PROGRESS' AND attempts = 0;
