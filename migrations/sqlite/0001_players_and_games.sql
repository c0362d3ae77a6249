-- Players and their games. Times are milliseconds since the Unix epoch, UTC,
-- as BIGINT: the same type and the same comparisons on SQLite and PostgreSQL.

CREATE TABLE players (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    email       TEXT    NOT NULL UNIQUE,
    name        TEXT    NOT NULL,
    lang        TEXT    NOT NULL,
    tz          TEXT,
    created_at  BIGINT  NOT NULL
);

CREATE TABLE games (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    white_id        BIGINT  NOT NULL REFERENCES players (id),
    black_id        BIGINT  NOT NULL REFERENCES players (id),
    -- 'standard' or 'chess960'
    variant         TEXT    NOT NULL,
    -- the Chess960 starting position number (0..959), when variant = 'chess960'
    chess960_number BIGINT,
    -- the starting position; NULL for the standard one
    start_fen       TEXT,
    -- the time control spec, e.g. '3d', '10/50d'
    time_control    TEXT    NOT NULL,
    -- 'active' or 'finished'
    status          TEXT    NOT NULL,
    -- '1-0', '0-1' or '1/2-1/2' once finished
    result          TEXT,
    end_reason      TEXT,
    created_at      BIGINT  NOT NULL,
    finished_at     BIGINT
);

CREATE INDEX games_by_status ON games (status);
CREATE INDEX games_by_white ON games (white_id);
CREATE INDEX games_by_black ON games (black_id);

CREATE TABLE moves (
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    -- half-move number, from 1
    ply         BIGINT  NOT NULL,
    uci         TEXT    NOT NULL,
    san         TEXT    NOT NULL,
    -- when the mail carrying the move reached our mailbox
    received_at BIGINT,
    -- when we sent the mail that told the opponent
    sent_at     BIGINT,
    PRIMARY KEY (game_id, ply)
);
