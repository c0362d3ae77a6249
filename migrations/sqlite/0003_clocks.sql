-- Time: leave bookings, what the scheduler has done for each game, and
-- when each active game next needs the scheduler (so a pass reads only the
-- games that are due, never all of them).

-- Kept up to date whenever a game, or a player's leave, changes:
-- next_due_at: the next instant the scheduler must look at the game (NULL
--   when finished); deadline_at, to_move, waiting_since: the side to move,
--   its deadline and when its clock started, for the deadline report.
ALTER TABLE games ADD COLUMN next_due_at BIGINT;
ALTER TABLE games ADD COLUMN deadline_at BIGINT;
ALTER TABLE games ADD COLUMN to_move TEXT;
ALTER TABLE games ADD COLUMN waiting_since BIGINT;

CREATE INDEX games_next_due ON games (next_due_at);
CREATE INDEX games_by_deadline ON games (status, deadline_at);
CREATE INDEX games_by_waiting ON games (status, waiting_since);
CREATE INDEX games_by_finish ON games (status, finished_at);

-- Leave (vacation) of a player: whole calendar days first_day..=last_day in
-- the player's time zone. event_id NULL: leave for all the player's games
-- outside events (events bring their own allowance).
CREATE TABLE leave_bookings (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id   BIGINT  NOT NULL REFERENCES players (id),
    event_id    BIGINT,
    -- 'YYYY-MM-DD'
    first_day   TEXT    NOT NULL,
    last_day    TEXT    NOT NULL,
    -- 1: special leave granted by a tournament director, not charged
    special     BIGINT  NOT NULL,
    -- who booked it: the player's address, or the TD named with --by
    created_by  TEXT    NOT NULL,
    reason      TEXT,
    created_at  BIGINT  NOT NULL,
    cancelled_at BIGINT
);

CREATE INDEX leave_by_player ON leave_bookings (player_id, cancelled_at);
CREATE INDEX leave_by_last_day ON leave_bookings (last_day);

-- What the scheduler did for a game (reminder, silence, leave notice,
-- timeout), recorded in the same transaction as the mails it caused: the
-- key makes each happen once, across restarts and several daemons.
CREATE TABLE due_done (
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    due_key     TEXT    NOT NULL,
    done_at     BIGINT  NOT NULL,
    PRIMARY KEY (game_id, due_key)
);

-- When each report was last made ('deadlines'), so the next one can list
-- the timeouts since.
CREATE TABLE report_runs (
    report      TEXT    PRIMARY KEY,
    last_at     BIGINT  NOT NULL
);
