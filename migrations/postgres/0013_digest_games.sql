-- The games a daily digest told its player of, and the position each
-- showed (half-moves played). When the digest is sent, the last move of
-- each game is marked as reached its player (moves.sent_at): a digest
-- player's clock starts when the digest telling him is sent, as a mail per
-- move starts it. A reply to the digest is checked against the position it
-- showed, as a reply to a game's own mail is.
CREATE TABLE digest_games (
    mail_key TEXT NOT NULL,
    game_id BIGINT NOT NULL REFERENCES games (id),
    ply BIGINT NOT NULL,
    PRIMARY KEY (mail_key, game_id)
);
