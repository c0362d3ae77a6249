-- One-click unsubscribe (issue 29, RFC 8058): every link a digest or an
-- announcement carries (`List-Unsubscribe`) names its player, what it
-- stops (`digest` or `news`) and when it was made, signed with the mail
-- secret. The first use of a link is recorded here, with the change it
-- made; a second use of the same link (a replay, a mail program trying
-- again) finds it here and changes nothing.
CREATE TABLE unsubscribes (
    player_id  BIGINT NOT NULL REFERENCES players (id),
    -- `digest` (back to a mail per move) or `news` (no announcements)
    list       TEXT   NOT NULL,
    -- when the link was made (seconds since 1970, UTC): with the player
    -- and the list, the link itself
    issued     BIGINT NOT NULL,
    -- when it was used (milliseconds since 1970, UTC, as every time here)
    used_at    BIGINT NOT NULL,
    -- 1 when this use changed the player's choice, 0 when it was already so
    changed    BIGINT NOT NULL,
    PRIMARY KEY (player_id, list, issued)
);
