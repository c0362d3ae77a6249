-- Events: round robins, olympiads and team matches, their entrants and
-- games, their TDs, and what the TDs did. Times are BIGINT ms since the
-- epoch, UTC, as everywhere.

CREATE TABLE events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT    NOT NULL,
    -- 'round-robin', 'olympiad' or 'team-match'
    kind        TEXT    NOT NULL,
    -- everything but the entrants, as JSON (time control, scoring,
    -- tie-breaks, withdrawal rule, cycles, boards, games per pairing)
    settings    TEXT    NOT NULL,
    -- 'open' (entrants may still be added) or 'started'
    status      TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    started_at  BIGINT
);

CREATE TABLE event_tds (
    event_id    BIGINT  NOT NULL REFERENCES events (id),
    email       TEXT    NOT NULL,
    PRIMARY KEY (event_id, email)
);

CREATE TABLE event_teams (
    event_id    BIGINT  NOT NULL REFERENCES events (id),
    -- starting number, from 1
    number      BIGINT  NOT NULL,
    name        TEXT    NOT NULL,
    PRIMARY KEY (event_id, number)
);

-- A seat in an event and who holds it: a starting number in a round robin,
-- a board of a team, or a team's reserve (seat NULL). A substitute takes
-- over the seat (player_id changes); the TD log keeps who held it before.
CREATE TABLE entrants (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id        BIGINT  NOT NULL REFERENCES events (id),
    player_id       BIGINT  NOT NULL REFERENCES players (id),
    -- the team's starting number; NULL in a round robin
    team            BIGINT,
    -- starting number (round robin) or board (team); NULL for a reserve
    seat            BIGINT,
    withdrawn_at    BIGINT,
    -- the event's rule applied at the withdrawal: 'forfeit-all' or 'annul-if-under-half'
    withdrawal_rule TEXT,
    UNIQUE (event_id, player_id)
);

CREATE INDEX entrants_by_player ON entrants (player_id);

-- An event's games carry the event, the round and the board.
ALTER TABLE games ADD COLUMN event_id BIGINT REFERENCES events (id);
ALTER TABLE games ADD COLUMN event_round BIGINT;
ALTER TABLE games ADD COLUMN event_board BIGINT;
-- 1 when the game was closed because a player withdrew: standings score it
-- by the event's withdrawal rule (forfeit or annulled), not by its row.
ALTER TABLE games ADD COLUMN closed_by_withdrawal BIGINT NOT NULL DEFAULT 0;

CREATE INDEX games_by_event ON games (event_id);

-- Every TD action: who, when, what and why.
CREATE TABLE td_actions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id    BIGINT,
    game_id     BIGINT,
    -- 'result', 'withdraw', 'replace', 'extend'
    action      TEXT    NOT NULL,
    by_td       TEXT    NOT NULL,
    -- what was done, in words
    detail      TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL
);

CREATE INDEX td_actions_by_event ON td_actions (event_id, id);

-- Deadline extensions granted by a TD, for the clock to add: `days` more
-- for `side` ('white' or 'black') in the game.
CREATE TABLE deadline_extensions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    side        TEXT    NOT NULL,
    days        BIGINT  NOT NULL,
    granted_by  TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    granted_at  BIGINT  NOT NULL
);

CREATE INDEX deadline_extensions_by_game ON deadline_extensions (game_id);
