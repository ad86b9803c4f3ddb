-- The API rate limit's counts (`--rate-limit N` requests a minute per credential), kept here
-- when several nodes share a PostgreSQL database so the limit holds for the cluster: one row per
-- credential (its SHA-256, never the credential) and one-minute window, counted up by one upsert
-- per request. Windows before the current minute are deleted. SQLite (one node) counts in
-- memory and leaves this table empty. Keyed by the window first, so the sweep reads a range.
CREATE TABLE rate_windows (
    window_start INTEGER NOT NULL,
    key          TEXT NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (window_start, key)
);
