-- +goose Up
-- Batch valuation: uploaded files awaiting confirmation, jobs, and one row per property of a job with its result.
-- River's own tables (the job queue) are created by River's migrations, run after these.

CREATE TABLE batch_files (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    BIGINT  NOT NULL REFERENCES users(id),
    file_name  TEXT    NOT NULL,
    sha256     TEXT    NOT NULL,
    content    BYTEA   NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX batch_files_created ON batch_files (created_at);

CREATE TABLE batch_jobs (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id         BIGINT  NOT NULL REFERENCES users(id),
    api_key_id      BIGINT REFERENCES api_keys(id),
    api_key_name    TEXT,
    file_name       TEXT    NOT NULL,
    file_sha256     TEXT    NOT NULL,
    mapping         TEXT    NOT NULL,
    status          TEXT    NOT NULL,
    status_message  TEXT,
    total           INTEGER NOT NULL,
    processed       INTEGER NOT NULL DEFAULT 0,
    successful      INTEGER NOT NULL DEFAULT 0,
    failed          INTEGER NOT NULL DEFAULT 0,
    dropped         INTEGER NOT NULL DEFAULT 0,
    credits_used    BIGINT NOT NULL DEFAULT 0,
    -- credits already written to the request history (a usage record per run of the job)
    credits_recorded BIGINT NOT NULL DEFAULT 0,
    webhook_url     TEXT,
    webhook_secret  TEXT,
    idempotency_key TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    started_at      TIMESTAMPTZ,
    finished_at     TIMESTAMPTZ,
    purged_at       TIMESTAMPTZ
);
CREATE INDEX batch_jobs_user ON batch_jobs (user_id, id);
CREATE UNIQUE INDEX batch_jobs_idempotency ON batch_jobs (user_id, idempotency_key);
CREATE INDEX batch_jobs_finished ON batch_jobs (finished_at);

CREATE TABLE batch_rows (
    job_id  BIGINT  NOT NULL REFERENCES batch_jobs(id),
    idx     INTEGER NOT NULL,
    input   TEXT    NOT NULL,
    -- pending until valued; success and failed are final, and a row leaves pending only in the transaction that
    -- charges it, so a row is valued and charged once even if a worker dies
    status  TEXT    NOT NULL,
    result  TEXT,
    credits INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, idx)
);

-- +goose Down
DROP TABLE batch_rows;
DROP TABLE batch_jobs;
DROP TABLE batch_files;
