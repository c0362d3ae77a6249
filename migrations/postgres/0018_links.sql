-- Private web links (`dopis web`): a player's pages and calendar feed are
-- reached through a token made from the mail secret, the player's id and
-- this number. `dopis player link EMAIL --revoke` adds one, so every link
-- given out before stops working.
ALTER TABLE players ADD COLUMN link_generation BIGINT NOT NULL DEFAULT 0;
