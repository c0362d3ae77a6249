-- What could not be done, kept apart so that it never blocks the rest.

-- A mail whose handling failed. It is retried a few times (transient
-- trouble), then quarantined: moved out of the inbox to the mailbox's failed
-- folder and kept here byte-exact, for `dopis failed` to list and show.
CREATE TABLE failed_mail (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    -- the mailbox it came from (as in mailbox_cursor) and where it was in it
    mailbox         TEXT    NOT NULL,
    mailbox_ref     TEXT    NOT NULL,
    raw             BLOB    NOT NULL,
    received_at     BIGINT  NOT NULL,
    -- the From address as far as it could be read, for the admin
    sender          TEXT,
    reason          TEXT    NOT NULL,
    attempts        BIGINT  NOT NULL,
    first_failed_at BIGINT  NOT NULL,
    last_failed_at  BIGINT  NOT NULL,
    -- set once it is given up on (no more attempts)
    quarantined_at  BIGINT,
    -- where the mail is kept in the mailbox (folder and file or UID), once moved
    kept_in         TEXT,
    UNIQUE (mailbox, mailbox_ref)
);

-- Scheduler work that failed (a game that cannot be loaded, a digest or a
-- report that cannot be composed): tried again after a growing pause, while
-- every other game, digest and report goes on.
CREATE TABLE stuck_work (
    -- 'game:42', 'digest:7', 'report:3'
    subject         TEXT    PRIMARY KEY,
    attempts        BIGINT  NOT NULL,
    last_error      TEXT    NOT NULL,
    first_failed_at BIGINT  NOT NULL,
    last_failed_at  BIGINT  NOT NULL,
    next_try_at     BIGINT  NOT NULL
);
