-- Qualifications (issue 24, open classes): what a section of an open
-- class earns by its result (`promotes` in the class's [entries]), kept
-- per player; an event that `requires` one takes an entry only from a
-- player with one to spare. Each is good for one entry: the entries that
-- hold one say which (`event_entries.qualification`), and a withdrawn or
-- left-out entry gives it back.
CREATE TABLE qualifications (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id     BIGINT  NOT NULL REFERENCES players (id),
    -- the qualification's name, as the class's promotes.to gives it
    name          TEXT    NOT NULL,
    -- the section whose result earned it
    event_id      BIGINT  NOT NULL REFERENCES events (id),
    -- the player's place after the section's tie-breaks, and their points
    -- and what their games could give (in quarter points)
    place         BIGINT  NOT NULL,
    points        BIGINT  NOT NULL,
    possible      BIGINT  NOT NULL,
    earned_at     BIGINT  NOT NULL,
    UNIQUE (player_id, event_id, name)
);

CREATE INDEX qualifications_by_player ON qualifications (player_id, name);

-- The qualification an entry holds (NULL where its event requires none).
ALTER TABLE event_entries ADD COLUMN qualification TEXT;

-- A section whose class promotes: 1 until its promotions are recorded
-- (when its last game has ended), then when they were.
ALTER TABLE events ADD COLUMN promotions_due BIGINT NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN promotions_at BIGINT;
