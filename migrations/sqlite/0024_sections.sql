-- Open classes (issue 24): a class's sections are events of their own,
-- each made from the class's settings when enough entries wait; the
-- section knows its class and its number, the entry the section it went to.
ALTER TABLE events ADD COLUMN parent_event BIGINT REFERENCES events (id);
ALTER TABLE events ADD COLUMN section_number BIGINT;
ALTER TABLE event_entries ADD COLUMN section_event BIGINT REFERENCES events (id);

-- Stages (issue 24): an event played as preliminary groups and a final
-- (1 from `event start` on a file with [stages]); when its final was built.
ALTER TABLE events ADD COLUMN takes_stages BIGINT NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN final_built_at BIGINT;
