-- +goose Up
-- The local people directory (person.Directory): one row per person, found by the folded last name and the state
-- of their current address, the whole record kept as JSON (person.Candidate).
CREATE TABLE people (
    id         TEXT    PRIMARY KEY,
    source     TEXT    NOT NULL,
    last_key   TEXT    NOT NULL,
    state_code TEXT    NOT NULL,
    record     TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL
);
CREATE INDEX people_lookup ON people (last_key, state_code);

-- Every person lookup, for the account's compliance audit: who asked, when, why, for whom and what was found.
CREATE TABLE person_lookups (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    api_key_id  INTEGER,
    purpose     TEXT    NOT NULL,
    query       TEXT    NOT NULL,
    outcome     TEXT    NOT NULL,
    result_id   TEXT    NOT NULL DEFAULT '',
    request_id  TEXT    NOT NULL DEFAULT '',
    created_at  TEXT    NOT NULL
);
CREATE INDEX person_lookups_user ON person_lookups (user_id, id);

-- People who opted out: their record is removed and never imported again. Only the record's id (a hash of the
-- folded name and address, person.CandidateID) is kept.
CREATE TABLE person_optouts (
    person_id  TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);

-- +goose Down
DROP TABLE person_optouts;
DROP TABLE person_lookups;
DROP TABLE people;
