-- Data that lasts only as long as it is needed (README, "What dopis keeps,
-- and for how long"): retention ([retention] in the config) and
-- `dopis player forget`.

-- When an outbox mail's body was dropped: sent longer ago than [retention]
-- outbox_bodies_days, or about a player who was forgotten. The row itself
-- stays (its key keeps the mail from being queued twice, its Message-ID
-- and recipient prove a bounce is ours, its time counts for the rate
-- limit). NULL: the body is kept.
ALTER TABLE outbox ADD COLUMN pruned_at BIGINT;
CREATE INDEX outbox_by_pruned ON outbox (status, pruned_at, sent_at);

-- When an inbound record lost its sender and outcome ([retention]
-- inbound_days); its key and fingerprint stay, so the mail still acts once.
ALTER TABLE inbound ADD COLUMN pruned_at BIGINT;
CREATE INDEX inbound_by_pruned ON inbound (pruned_at, processed_at);

-- When the player was forgotten (`dopis player forget`): their name and
-- address are placeholders since, kept for the standings of their games.
ALTER TABLE players ADD COLUMN forgotten_at BIGINT;
