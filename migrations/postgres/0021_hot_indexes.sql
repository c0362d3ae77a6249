-- Indexes for the statements the daemon runs per move mail and per
-- scheduler pass (issue 15), checked with EXPLAIN ANALYZE on PostgreSQL:
-- each of these statements read every active game (or every player)
-- through an index that only narrowed them to their status.

-- The scheduler's next due game (`claim_due_game`): the active games in
-- order of their next instant, then number, read from the first and
-- stopped at the first due (was: every active game read and sorted).
CREATE INDEX games_active_due ON games (status, next_due_at, id);

-- The events with games in progress (every daemon pass, for the daily
-- reports) probe each event for one active game; an event's games are
-- still found by the first column.
CREATE INDEX games_by_event_status ON games (event_id, status);
DROP INDEX games_by_event;

-- The earlier mail with a fingerprint, oldest first: read in order and
-- stopped at the first.
CREATE INDEX inbound_by_fingerprint_id ON inbound (fingerprint, id);
DROP INDEX inbound_by_fingerprint;

-- The paused players' addresses, whose mail waits: read by every outbox
-- claim (was: every player read). Partial, so it holds only them.
CREATE INDEX players_paused ON players (email) WHERE paused_at IS NOT NULL;

-- The deadline report's silent games (waiting since a threshold, in that
-- order, not due soon): read in order with the deadline at hand, and
-- counted for the text's heading from the index alone (was: a lookup of
-- every silent game's row only to count it, 0.68 s of SQLite at 1M games).
CREATE INDEX games_by_waiting_id ON games (status, waiting_since, id, deadline_at);
DROP INDEX games_by_waiting;

-- The games ended in a window (the report's timeouts), and only those: on
-- a fresh PostgreSQL (no statistics yet) the planner took games_by_finish
-- (status, finished_at) for the scheduler's next due game, reading every
-- active game per claim; partial, it serves only finished games.
DROP INDEX games_by_finish;
CREATE INDEX games_by_finish ON games (finished_at) WHERE status = 'finished';
