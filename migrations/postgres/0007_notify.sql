-- How a player hears of their moves: 'each' (a mail per move, the default)
-- or 'digest' (one mail a day with every game where it is their move).
ALTER TABLE players ADD COLUMN notify TEXT NOT NULL DEFAULT 'each';

-- The digests sent: one per player and calendar day (in their time zone).
CREATE TABLE digests (
    player_id   BIGINT  NOT NULL REFERENCES players (id),
    -- 'YYYY-MM-DD'
    day         TEXT    NOT NULL,
    sent_at     BIGINT  NOT NULL,
    PRIMARY KEY (player_id, day)
);
