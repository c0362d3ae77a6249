-- The half-move at which each side last offered a draw, for an event's
-- "one offer per N moves" rule. NULL: never offered.
ALTER TABLE games ADD COLUMN white_offer_ply BIGINT;
ALTER TABLE games ADD COLUMN black_offer_ply BIGINT;
