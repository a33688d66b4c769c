-- Accounts people own (issue 25): invitations, their own password and its reset by e-mail, the
-- language and notifications of each person, and e-mail sent through the outbox.

-- An invited person has no password until they accept their invitation.
alter table users alter column password_hash drop not null;
-- The person's language: their e-mails and exports, and the app's in a new browser.
alter table users add column locale text not null default 'en' check (locale in ('en', 'fr'));
-- What they want to hear of by e-mail.
alter table users add column notify_reports boolean not null default true;
alter table users add column notify_sign_ins boolean not null default true;
alter table users add column notify_invitations boolean not null default true;

-- Single-use links sent by e-mail: an invitation (7 days) or a password reset (1 hour). Only the
-- SHA-256 of the secret is kept; the link carries the secret itself.
create table account_tokens (
    id uuid primary key,
    user_id uuid not null references users (id) on delete cascade,
    purpose text not null check (purpose in ('invitation', 'password_reset')),
    token_hash bytea not null unique,
    expires_at timestamptz not null,
    used_at timestamptz,
    -- Who sent the invitation (told when it is accepted); null for a reset.
    created_by uuid references users (id) on delete set null,
    -- The mail server refused the message for good (the address does not exist, say).
    bounced_at timestamptz,
    bounce_reason text,
    created_at timestamptz not null default now()
);
create index account_tokens_user on account_tokens (user_id, purpose, created_at desc);

-- E-mail rides the outbox (kind 'email'): one row per message to send, written in the change's
-- transaction. Unlike webhook events, which the dispatcher fans out at once, a message stays in
-- the outbox until the mail server took it, so it carries its own schedule.
alter table outbox add column recipient_id uuid;
alter table outbox add column attempts integer not null default 0;
alter table outbox add column next_attempt_at timestamptz not null default now();
alter table outbox add column lease_until timestamptz;
alter table outbox add column last_error text;
create index outbox_email_due on outbox (next_attempt_at) where kind = 'email';
create index outbox_email_recipient on outbox (recipient_id) where kind = 'email';
