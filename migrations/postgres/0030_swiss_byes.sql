-- Swiss events (issue 25): half-point byes a player asked for (by mail,
-- or through a TD) before their round was paired. The round's pairing
-- leaves the seat unpaired and scores it a draw's points (TRF `H`). A
-- seat, not a player: a substitute takes over the seat's byes with its
-- history. The primary key makes asking twice for one round change
-- nothing.
CREATE TABLE swiss_byes (
    event_id     BIGINT NOT NULL REFERENCES events (id),
    -- the pairing number (the entrant's seat)
    seat         BIGINT NOT NULL,
    -- the round, from 1
    round        BIGINT NOT NULL,
    -- when it was asked for (milliseconds since 1970, UTC, as every time here)
    requested_at BIGINT NOT NULL,
    PRIMARY KEY (event_id, seat, round)
);
