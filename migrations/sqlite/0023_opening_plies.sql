-- A thematic event's line (issue 24, section 4): the first moves of each
-- of its games are set when the game is made; this counts them, so the
-- first mails can show the position after them and name the line.
ALTER TABLE games ADD COLUMN opening_plies BIGINT NOT NULL DEFAULT 0;
