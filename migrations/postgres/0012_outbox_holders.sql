-- Which daemon holds the lease on an outbox mail it is sending (NULL: none).
-- On PostgreSQL each daemon holds a session advisory lock on this number
-- while it lives, so a daemon that died (kill -9, a lost machine) is seen
-- at once and its leases are taken over without waiting for them to run
-- out; on SQLite only one daemon runs, and it takes over every lease.
ALTER TABLE outbox ADD COLUMN leased_by BIGINT;
