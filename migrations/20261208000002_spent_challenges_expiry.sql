-- Expired challenges are found by their expiry (`store::mfa::spend_challenge`). One statement per
-- migration from here on: docs/scaling.md, Citus.
create index spent_challenges_expiry on spent_challenges (expires_at);
