-- A sign-in challenge (the signed token between the password and the second factor) opens one
-- session at most: its id is written here when it is answered, and a second answer finds it. Rows
-- are deleted once their challenge has expired (`store::mfa::spend_challenge`).
create table spent_challenges (
    id uuid primary key,
    expires_at timestamptz not null
);
