-- XFCC (issue 14): the password a player's chess program logs in with
-- (`dopis player xfcc-password`, or the mail command `xfcc password`).
-- An Argon2id PHC string, never the password; NULL: no XFCC access
-- (never given, or revoked).
ALTER TABLE players ADD COLUMN xfcc_hash TEXT;
