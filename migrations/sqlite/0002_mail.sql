-- Mail: what came in (once each), what goes out (the outbox), commands
-- waiting for confirmation, and where reading the IMAP mailbox got to.

-- The side with a standing draw offer: 'white', 'black' or NULL.
ALTER TABLE games ADD COLUMN draw_offer_by TEXT;

-- Every inbound mail, recorded in the same transaction as its effects: the
-- unique key makes a mail act at most once, whatever crashes and restarts.
CREATE TABLE inbound (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    -- 'mid:<Message-ID>' or 'sha256:<hex of the raw mail>'
    mail_key     TEXT    NOT NULL UNIQUE,
    mailbox_ref  TEXT    NOT NULL,
    received_at  BIGINT  NOT NULL,
    sender       TEXT,
    game_id      BIGINT,
    -- what was done, in words: 'played e4', 'refused: wrong token', …
    outcome      TEXT    NOT NULL,
    processed_at BIGINT  NOT NULL
);

CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    -- deterministic per mail, so a retried transaction never queues a second one
    mail_key        TEXT    NOT NULL UNIQUE,
    message_id      TEXT    NOT NULL,
    -- 'answer' (a reply to someone's mail: rate-limited) or 'notice'
    kind            TEXT    NOT NULL,
    envelope_from   TEXT    NOT NULL,
    recipient       TEXT    NOT NULL,
    raw             BLOB    NOT NULL,
    game_id         BIGINT,
    -- for a mail telling a player of the opponent's move: that move's ply
    ply             BIGINT,
    -- 'pending', 'sent' or 'failed' (permanently)
    status          TEXT    NOT NULL,
    attempts        BIGINT  NOT NULL,
    next_attempt_at BIGINT  NOT NULL,
    last_error      TEXT,
    created_at      BIGINT  NOT NULL,
    sent_at         BIGINT
);

CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
CREATE INDEX outbox_by_recipient ON outbox (recipient, created_at);

-- A command from a player's registered address that lacked the reply
-- token: applied when the player answers the confirmation mail.
CREATE TABLE confirmations (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    player_id   BIGINT  NOT NULL REFERENCES players (id),
    text        TEXT    NOT NULL,
    received_at BIGINT  NOT NULL,
    created_at  BIGINT  NOT NULL,
    used_at     BIGINT
);

CREATE TABLE mailbox_cursor (
    mailbox      TEXT    PRIMARY KEY,
    position     TEXT    NOT NULL,
    updated_at   BIGINT  NOT NULL
);
