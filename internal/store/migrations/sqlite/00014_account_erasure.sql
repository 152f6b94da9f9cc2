-- +goose Up
-- Closed accounts are erased ErasureAfterYears (account.ErasureAfterYears: 2) after they were closed (store.EraseAccount,
-- run daily by the retention job): their personal data is deleted or overwritten, the row stays (anonymised) so that
-- the ledger and payments, which tax and accounting need, keep their account. erased_at says when; NULL: not erased.
ALTER TABLE users ADD COLUMN erased_at TEXT;
-- The accounts waiting for erasure, for the retention job's daily look.
CREATE INDEX users_erasure_due ON users (closed_at) WHERE closed_at IS NOT NULL AND erased_at IS NULL;

-- The ledger stays append-only, with one exception: the description of a row of an erased account may be replaced
-- (credit.ErasedDescription), since it can hold a searched address or a person's name. Nothing else of the row may
-- change, and only once the account's erased_at is set (in the erasing transaction, before the ledger is touched).
DROP TRIGGER credit_ledger_no_update;
-- +goose StatementBegin
CREATE TRIGGER credit_ledger_no_update BEFORE UPDATE ON credit_ledger
WHEN NOT (NEW.id = OLD.id AND NEW.user_id = OLD.user_id AND NEW.amount = OLD.amount
    AND NEW.balance_after = OLD.balance_after AND NEW.kind = OLD.kind AND NEW.reference = OLD.reference
    AND NEW.created_at = OLD.created_at
    AND EXISTS (SELECT 1 FROM users WHERE users.id = OLD.user_id AND users.erased_at IS NOT NULL))
BEGIN
    SELECT RAISE(ABORT, 'credit_ledger is append-only');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER credit_ledger_no_update;
-- +goose StatementBegin
CREATE TRIGGER credit_ledger_no_update BEFORE UPDATE ON credit_ledger
BEGIN
    SELECT RAISE(ABORT, 'credit_ledger is append-only');
END;
-- +goose StatementEnd
DROP INDEX users_erasure_due;
ALTER TABLE users DROP COLUMN erased_at;
