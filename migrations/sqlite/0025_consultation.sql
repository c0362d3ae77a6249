-- Consultation games (vote chess, issue 24 part 5): each side of such a
-- game is a team whose members vote on its move by mail; the game's own
-- white_id and black_id are the two captains, so resigning, draw offers
-- and the clocks work as in any game.

-- The members of each side (the captain too), in the order of the file.
CREATE TABLE consultation_members (
    game_id    BIGINT NOT NULL REFERENCES games (id),
    -- 'white' or 'black'
    side       TEXT   NOT NULL,
    player_id  BIGINT NOT NULL REFERENCES players (id),
    -- 1 for the side's captain: their vote breaks a tie
    captain    BIGINT NOT NULL DEFAULT 0,
    -- the team's name, as the file gives it
    team       TEXT   NOT NULL,
    position   BIGINT NOT NULL,
    PRIMARY KEY (game_id, player_id)
);

-- How long a side's votes stay open, and when the open vote closes: the
-- daemon decides the move then (NULL once the game is over).
CREATE TABLE consultation_games (
    game_id         BIGINT PRIMARY KEY REFERENCES games (id),
    vote_hours      BIGINT NOT NULL,
    votes_close_at  BIGINT
);

CREATE INDEX consultation_games_by_close ON consultation_games (votes_close_at);

-- Every member's vote on each move of their side: one row per member and
-- half-move, replaced when they change it (`changes` counts how often);
-- kept after the move for the PGN and the web page.
CREATE TABLE consultation_votes (
    game_id    BIGINT NOT NULL REFERENCES games (id),
    ply        BIGINT NOT NULL,
    player_id  BIGINT NOT NULL REFERENCES players (id),
    uci        TEXT   NOT NULL,
    san        TEXT   NOT NULL,
    -- when the vote as it stands was cast: the earliest breaks a tie
    voted_at   BIGINT NOT NULL,
    changes    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, ply, player_id)
);
