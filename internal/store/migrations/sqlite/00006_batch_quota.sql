-- +goose Up
-- The bytes each user keeps on the server for batches, counted against a per-plan quota (batch.StorageQuota):
-- a preview's stored data until its job is created, and a job's stored inputs until its rows are purged.
--
-- A preview now keeps the parsed table (gzip-compressed JSON, content_format 'table'), not the uploaded file.
-- Previews stored before this migration keep 'upload': they are no longer read (their owner is asked to upload
-- the file again) and are deleted with the others 24 hours after they were made. Their size still counts.
ALTER TABLE batch_files ADD COLUMN size_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE batch_files ADD COLUMN content_format TEXT NOT NULL DEFAULT 'upload';
UPDATE batch_files SET size_bytes = length(content);
CREATE INDEX batch_files_user ON batch_files (user_id);

ALTER TABLE batch_jobs ADD COLUMN input_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE batch_jobs SET input_bytes = (SELECT COALESCE(SUM(length(CAST(input AS BLOB))), 0) FROM batch_rows
    WHERE batch_rows.job_id = batch_jobs.id) WHERE purged_at IS NULL;

-- +goose Down
DROP INDEX batch_files_user;
ALTER TABLE batch_jobs DROP COLUMN input_bytes;
ALTER TABLE batch_files DROP COLUMN content_format;
ALTER TABLE batch_files DROP COLUMN size_bytes;
