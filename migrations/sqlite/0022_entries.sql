-- Entries by mail (issue 24): a player, or an address not yet registered,
-- asks to enter an event that is open for entries; the entry counts once
-- it is confirmed by a reply to the confirmation mail (a From: can be
-- forged, a reply to our mail cannot be read by a forger).

CREATE TABLE event_entries (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id      BIGINT  NOT NULL REFERENCES events (id),
    -- the address as registered (or, for a stranger, as it wrote)
    email         TEXT    NOT NULL,
    -- NULL until a stranger confirms and is registered
    player_id     BIGINT  REFERENCES players (id),
    -- a stranger's name and language, from its mail
    name          TEXT    NOT NULL,
    lang          TEXT    NOT NULL,
    -- 1 when the address was not a registered player when it asked
    stranger      BIGINT  NOT NULL DEFAULT 0,
    -- 'pending', 'confirmed', 'withdrawn', 'refused', 'seated' or 'left-out'
    status        TEXT    NOT NULL,
    -- the TD's reason for a refusal; why an entry was left out at the start
    reason        TEXT,
    created_at    BIGINT  NOT NULL,
    confirmed_at  BIGINT,
    ended_at      BIGINT,
    UNIQUE (event_id, email)
);

CREATE INDEX event_entries_by_email ON event_entries (email, created_at);
CREATE INDEX event_entries_by_time ON event_entries (created_at);

-- Whether an event takes entries by mail (1 from `dopis event open`), and
-- when its entries closed (it started, or the TD was told there were too
-- few): closed once.
ALTER TABLE events ADD COLUMN takes_entries BIGINT NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN entries_closed_at BIGINT;

-- Whether the player asked for a mail when an event opens for entries
-- (`notify announcements`); off by default.
ALTER TABLE players ADD COLUMN announcements BIGINT NOT NULL DEFAULT 0;
