-- The encrypted messenger of one realm (an enterprise, or the platform admins). The server holds
-- public keys, ciphertext, nonces, signatures and wrapped keys only: never a plaintext or a
-- private key. Users are named by id without foreign keys (see 20261126000001).

-- Each user's public keys, by version: P-256 points (65 bytes, uncompressed), one for HPKE key
-- agreement and one for ECDSA signatures. A new browser without a backup registers a new version.
create table messaging_keys (
    user_id uuid not null,
    version integer not null check (version > 0),
    agreement_key bytea not null check (length(agreement_key) = 65),
    signing_key bytea not null check (length(signing_key) = 65),
    created_at timestamptz not null default now(),
    primary key (user_id, version)
);

-- A user's private keys, encrypted in the browser under a key derived from their passphrase.
create table messaging_key_backups (
    user_id uuid primary key,
    salt bytea not null,
    iterations integer not null,
    iv bytea not null,
    ciphertext bytea not null,
    updated_at timestamptz not null default now()
);

create table conversations (
    id uuid primary key,
    kind text not null check (kind in ('direct', 'group')),
    name text,
    -- The two members of a direct conversation, smaller id first: one conversation per pair.
    direct_pair text unique,
    created_by uuid,
    created_at timestamptz not null default now(),
    last_message_at timestamptz,
    -- The key epoch messages must use; 0 until the first key is distributed.
    epoch integer not null default 0,
    epoch_started_at timestamptz,
    epoch_messages integer not null default 0,
    -- Set when a member leaves or is removed: nothing more is accepted under the old key.
    rekey_required boolean not null default false,
    check ((kind = 'direct') = (direct_pair is not null))
);

create table conversation_members (
    conversation_id uuid not null references conversations (id) on delete cascade,
    user_id uuid not null,
    added_by uuid,
    joined_at timestamptz not null default now(),
    archived boolean not null default false,
    -- Everything up to here has been read (a message's created_at).
    last_read_at timestamptz,
    last_read_message_id uuid,
    primary key (conversation_id, user_id)
);
create index conversation_members_user_idx on conversation_members (user_id);

-- One epoch key per member, wrapped for that member's agreement key with HPKE (auth mode, by the
-- epoch's creator): `enc` (65 bytes) followed by the sealed 32-byte key.
create table conversation_keys (
    conversation_id uuid not null references conversations (id) on delete cascade,
    epoch integer not null,
    user_id uuid not null,
    key_version integer not null,
    wrapped_key bytea not null,
    created_by uuid,
    creator_key_version integer not null,
    created_at timestamptz not null default now(),
    primary key (conversation_id, epoch, user_id)
);

-- Messages: AES-256-GCM ciphertext under the epoch key, signed by the sender. System entries
-- (a member added, removed or gone) carry no ciphertext, only who and whom.
create table messages (
    id uuid primary key,
    conversation_id uuid not null references conversations (id) on delete cascade,
    kind text not null default 'message' check (kind in ('message', 'member_added', 'member_removed', 'member_left', 'renamed')),
    sender_id uuid,
    subject_id uuid,
    epoch integer,
    sender_key_version integer,
    iv bytea,
    ciphertext bytea,
    signature bytea,
    created_at timestamptz not null default clock_timestamp(),
    check ((kind = 'message') = (ciphertext is not null and iv is not null and signature is not null and epoch is not null))
);
create index messages_conversation_idx on messages (conversation_id, created_at desc, id desc);
