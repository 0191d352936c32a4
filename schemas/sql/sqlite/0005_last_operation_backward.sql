-- A runtime's last operation is ORDER BY start_timestamp DESC, rowid DESC LIMIT 1. The index
-- used to sort start_timestamp descending, but its entries end in the rowid ascending, so that
-- order was neither the index's nor its reverse: SQLite sorted each runtime's operations in a
-- temporary B-tree (or, in find_runtime_status, took two MAX subqueries to avoid it). With both
-- ascending, the order is the index read backwards, and the first entry is the answer.
DROP INDEX operation_cluster_start;
CREATE INDEX operation_cluster_start ON operation (cluster_id, start_timestamp);
