-- Swiss events (issue 25): one row per round of a Swiss event once it is
-- paired. The primary key makes a round paired once: the pairing, its
-- games and its mails commit in one transaction with this row, and a
-- second pairing of the same round (a retried pass, a second daemon)
-- fails on it and changes nothing. The games of the round are the event's
-- games of that round; the row adds who had the pairing-allocated bye.
CREATE TABLE swiss_rounds (
    event_id   BIGINT NOT NULL REFERENCES events (id),
    -- the round, from 1
    round      BIGINT NOT NULL,
    -- the pairing number (the entrant's seat) given the pairing-allocated
    -- bye (C.04.1 Article 3); NULL when the round paired everyone. A seat,
    -- not a player: a substitute takes over the seat's history
    bye_seat   BIGINT,
    -- when it was paired (milliseconds since 1970, UTC, as every time here)
    paired_at  BIGINT NOT NULL,
    PRIMARY KEY (event_id, round)
);
