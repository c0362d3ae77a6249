-- The rating list (FIDE's Elo, src/rating.rs): each player's place on it,
-- kept in the same transaction as the end of every rated game, and the
-- history of every change, so the list can be audited and recomputed.
CREATE TABLE ratings (
    player_id     BIGINT  PRIMARY KEY REFERENCES players (id),
    -- the rating shown; NULL while unrated
    rating        BIGINT,
    -- 'iccf', 'fide', 'td' (a start rating) or 'first' (from first games)
    source        TEXT,
    -- rated games so far (K = 40 for a new player's first 30)
    games         BIGINT  NOT NULL DEFAULT 0,
    -- 1 once the rating at a period's start reached 2400 (K = 10 for good)
    reached_2400  BIGINT  NOT NULL DEFAULT 0,
    -- the running rating period (a month: year * 12 + month - 1), its
    -- opening rating R0, K, the sum of its games' ΔR in hundredths, and
    -- its number of games
    period        BIGINT,
    period_start  BIGINT  NOT NULL DEFAULT 0,
    k             BIGINT  NOT NULL DEFAULT 0,
    period_sum    BIGINT  NOT NULL DEFAULT 0,
    period_games  BIGINT  NOT NULL DEFAULT 0,
    -- while unrated: the games towards a first rating (JSON)
    first_games   TEXT    NOT NULL DEFAULT '[]',
    updated_at    BIGINT  NOT NULL
);

CREATE TABLE rating_history (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id       BIGINT  NOT NULL REFERENCES players (id),
    -- the game, or NULL for a start rating a TD set
    game_id         BIGINT  REFERENCES games (id),
    -- 'rated', 'first-game' (towards a first rating), 'not-rated'
    -- (an unrated opponent) or 'set' (a TD's start rating)
    kind            TEXT    NOT NULL,
    period          BIGINT,
    opponent_id     BIGINT  REFERENCES players (id),
    -- the opponent's rating the game was rated against (their R0)
    opponent_rating BIGINT,
    -- 0 loss, 1 draw, 2 win
    score_halves    BIGINT,
    -- the difference counted (8.3.1), the expected score and ΔR in
    -- hundredths (8.1.2, 8.3.2), K after the 700 cap (8.3.3)
    diff            BIGINT,
    expected        BIGINT,
    delta           BIGINT,
    k               BIGINT,
    rating_before   BIGINT,
    rating_after    BIGINT,
    -- for 'set': where the rating came from, who set it and why
    source          TEXT,
    set_by          TEXT,
    at              BIGINT  NOT NULL,
    UNIQUE (game_id, player_id)
);
CREATE INDEX rating_history_by_player ON rating_history (player_id, id);
