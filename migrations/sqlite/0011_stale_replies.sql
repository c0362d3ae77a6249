-- Stale replies (a reply written for an earlier position of its game).

-- The position (half-moves played) a confirmation asked about: confirming
-- after the game moved on asks again instead of playing blindly. NULL for
-- confirmations asked before this was kept.
ALTER TABLE confirmations ADD COLUMN ply BIGINT;

-- What makes an inbound mail the same mail when it comes again under a new
-- Message-ID (sender, Date, subject, threading, text, hashed): a mail
-- resent from a client's outbox is recognised and not carried out twice.
-- NULL for mail that acted on no game, or had no Date.
ALTER TABLE inbound ADD COLUMN fingerprint TEXT;
CREATE INDEX inbound_by_fingerprint ON inbound (fingerprint);
