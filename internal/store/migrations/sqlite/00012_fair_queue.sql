-- +goose Up
-- Batch jobs waiting for their first run, which a running job of another account hands over to (jobs.batchWorker):
-- a small index, as few jobs wait at any time.
CREATE INDEX batch_jobs_waiting ON batch_jobs (user_id) WHERE status = 'pending';

-- +goose Down
DROP INDEX batch_jobs_waiting;
