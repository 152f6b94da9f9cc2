-- +goose Up
-- The opt-out log: every opt-out request (which listing it matched, if any, and whether its emailed link was
-- confirmed). The email address itself is not kept, only its SHA-256 (the link is sent when the request is made),
-- nor the link, only its token's SHA-256.
CREATE TABLE person_optout_requests (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- NULL when no link was sent (no listing matched strictly, or the listing's daily limit was reached)
    token_hash   TEXT    UNIQUE,
    listing_id   TEXT,
    email_hash   TEXT    NOT NULL,
    -- the name and address asked about (JSON), as the request gave them
    query        TEXT    NOT NULL,
    client_ip    TEXT    NOT NULL,
    -- sent, no_match, listing_limited
    outcome      TEXT    NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ,
    confirmed_at TIMESTAMPTZ
);
CREATE INDEX person_optout_requests_listing ON person_optout_requests (listing_id, created_at);

-- An opted-out person's folded name and state, so that their name is also left out of other people's associated
-- people (associates are names in other records, not links to listings).
ALTER TABLE person_optouts ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
ALTER TABLE person_optouts ADD COLUMN state_code TEXT NOT NULL DEFAULT '';
CREATE INDEX person_optouts_name ON person_optouts (name_key, state_code);

-- The audit log says how each lookup was made and what it cost, and keeps the caller's X-Request-Id apart from the
-- server's request id (a caller could otherwise give every lookup the same id, or someone else's).
ALTER TABLE person_lookups ADD COLUMN api_key_name TEXT;
ALTER TABLE person_lookups ADD COLUMN credits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE person_lookups ADD COLUMN client_request_id TEXT;
UPDATE person_lookups SET credits = 5 WHERE outcome = 'found';
-- Misses of the last hour, for the sweep limit (person.MissesPerHour).
CREATE INDEX person_lookups_outcome ON person_lookups (user_id, outcome, created_at);
ALTER TABLE usage_records ADD COLUMN client_request_id TEXT;

-- +goose Down
ALTER TABLE usage_records DROP COLUMN client_request_id;
DROP INDEX person_lookups_outcome;
ALTER TABLE person_lookups DROP COLUMN client_request_id;
ALTER TABLE person_lookups DROP COLUMN credits;
ALTER TABLE person_lookups DROP COLUMN api_key_name;
DROP INDEX person_optouts_name;
ALTER TABLE person_optouts DROP COLUMN state_code;
ALTER TABLE person_optouts DROP COLUMN name_key;
DROP TABLE person_optout_requests;
