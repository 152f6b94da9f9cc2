-- +goose Up
-- A payment the customer starts is for one change of one subscription at one price (billing/payment.go). It is open
-- (can still be paid) while open_for holds the account's id: the unique index keeps at most one open payment per
-- account, so repeated or parallel clicks answer the same payment instead of charging again.
ALTER TABLE payments ADD COLUMN open_for INTEGER;
CREATE UNIQUE INDEX payments_open ON payments (open_for);
-- When an open payment expires (24 hours after it was made); it is then closed by the billing job.
ALTER TABLE payments ADD COLUMN expires_at TEXT;
CREATE INDEX payments_expiry ON payments (expires_at) WHERE open_for IS NOT NULL;
-- billing.State.PricedState when the payment was priced; confirming it once the account changed is refused.
ALTER TABLE payments ADD COLUMN priced_state TEXT NOT NULL DEFAULT '';
-- What an open payment waits for: processing, requires_confirmation, requires_action, requires_payment_method.
ALTER TABLE payments ADD COLUMN awaiting TEXT NOT NULL DEFAULT '';
-- The card the payment charges, and what made it at the provider (an incomplete subscription or an invoice).
ALTER TABLE payments ADD COLUMN payment_method_ref TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN parent_ref TEXT NOT NULL DEFAULT '';
-- An outbox of what a closed payment still owes the provider ('cancel' or 'refund'), worked off by the billing
-- job, so that a provider outage delays these calls but never loses them.
ALTER TABLE payments ADD COLUMN provider_action TEXT NOT NULL DEFAULT '';
CREATE INDEX payments_provider_action ON payments (provider_action) WHERE provider_action <> '';
-- Payments left pending by earlier versions could be paid at any later price: they expire now.
UPDATE payments SET status = 'expired', failure_message = 'Not paid within 24 hours; nothing was charged.'
    WHERE status = 'pending' AND kind IN ('subscription', 'upgrade');

-- +goose Down
DROP INDEX payments_provider_action;
DROP INDEX payments_expiry;
DROP INDEX payments_open;
ALTER TABLE payments DROP COLUMN provider_action;
ALTER TABLE payments DROP COLUMN parent_ref;
ALTER TABLE payments DROP COLUMN payment_method_ref;
ALTER TABLE payments DROP COLUMN awaiting;
ALTER TABLE payments DROP COLUMN priced_state;
ALTER TABLE payments DROP COLUMN expires_at;
ALTER TABLE payments DROP COLUMN open_for;
