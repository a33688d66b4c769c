-- Passkeys (issue 26): WebAuthn credentials, each a person's, for signing in with no password or
-- as the second factor after it. `passkey` is the credential as webauthn-rs keeps it (public key,
-- algorithm, signature counter, backup flags); `credential_id` is its id, unique across everyone.
create table user_passkeys (
    id uuid primary key,
    user_id uuid not null references users (id) on delete cascade,
    credential_id bytea not null unique,
    name text not null,
    passkey jsonb not null,
    created_at timestamptz not null default now(),
    last_used_at timestamptz
);
create index user_passkeys_user_idx on user_passkeys (user_id);
