-- +goose Up
-- The market in partitions (issue 39): a partition is the homes of one state, trained as its own engine (a River
-- job a worker takes) and saved under its own fingerprint. market_part names the partition of a saved engine ("":
-- the whole market, as before), so that pruning keeps each partition's newest; properties_state finds a state's
-- homes when one partition's records are read.
ALTER TABLE avm_models ADD COLUMN market_part TEXT NOT NULL DEFAULT '';
CREATE INDEX properties_state ON properties (state);

-- +goose Down
DROP INDEX properties_state;
ALTER TABLE avm_models DROP COLUMN market_part;
