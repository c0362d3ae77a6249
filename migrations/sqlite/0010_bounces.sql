-- Bounces: a player whose address keeps bouncing is paused, not mailed in a
-- loop. Each hard bounce of one of our mails is recorded once; enough of them
-- within a few days ([mail] bounces_to_pause, bounce_days) pause the player:
-- the outbox holds their mail (sent when they are resumed) and their events'
-- TDs are told. A mail from them that authenticates, or
-- `dopis player resume`, resumes them.

CREATE TABLE bounces (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id   BIGINT  NOT NULL REFERENCES players (id),
    -- the Message-ID of our mail that bounced (a bounce must return one)
    message_id  TEXT    NOT NULL,
    -- the DSN status, e.g. '5.1.1', when the bounce gave one
    status      TEXT,
    -- the inbound key of the bounce mail
    mail_key    TEXT    NOT NULL,
    -- when the bounce reached our mailbox
    received_at BIGINT  NOT NULL,
    -- one count per mail of ours, however many reports come back for it
    UNIQUE (player_id, message_id)
);

CREATE INDEX bounces_by_player ON bounces (player_id, received_at);

-- When the player's mail was paused and why (NULL: not paused), and when it
-- was last resumed (bounces before that no longer count).
ALTER TABLE players ADD COLUMN paused_at BIGINT;
ALTER TABLE players ADD COLUMN paused_reason TEXT;
ALTER TABLE players ADD COLUMN resumed_at BIGINT;
