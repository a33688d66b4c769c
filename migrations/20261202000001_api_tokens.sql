-- Credentials for programs (issue 23). A personal access token belongs to a user and acts as them,
-- within its scopes; a service credential belongs to an enterprise (user_id null) and acts as its
-- CEO would, within its scopes, whoever the CEO is. The secret itself is never stored: only its
-- SHA-256 (it holds 256 random bits, so no slow hash is needed) and its first characters, which
-- people recognise it by.
create table api_tokens (
    id uuid primary key,
    user_id uuid references users (id) on delete cascade,
    enterprise_id uuid references enterprises (id) on delete cascade,
    -- The owner's role when the token was made: a token whose owner changed role is dead.
    role text not null,
    created_by uuid,
    name text not null,
    scopes text[] not null,
    prefix text not null,
    secret_hash bytea not null unique,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    last_used_at timestamptz,
    revoked_at timestamptz,
    check (user_id is not null or enterprise_id is not null)
);

create index api_tokens_user_id on api_tokens (user_id) where user_id is not null;
create index api_tokens_enterprise_id on api_tokens (enterprise_id) where user_id is null;
