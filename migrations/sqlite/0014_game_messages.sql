-- Messages between the players: the lines a player wrote after their move
-- (or a mail of prose alone), passed on to the opponent and kept with the
-- game, so its PGN carries them as comments after the move they came with.
CREATE TABLE game_messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    -- half-moves played when it was written: it follows that move
    ply         BIGINT  NOT NULL,
    -- 'white' or 'black': who wrote it
    side        TEXT    NOT NULL,
    body        TEXT    NOT NULL,
    -- the inbound mail it came in, so a mail adds it once
    mail_key    TEXT    NOT NULL,
    written_at  BIGINT  NOT NULL,
    UNIQUE (mail_key, game_id)
);
CREATE INDEX game_messages_by_game ON game_messages (game_id, ply);
