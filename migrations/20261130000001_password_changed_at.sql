-- When the user's password last changed: device tokens (the sign-in rate limit's proof of a known
-- browser) issued before it no longer count. Null: never changed since this column came.
alter table users add column password_changed_at timestamptz;
