-- One person per identity at a provider (20261209000001).
create unique index users_sso_identity on users (sso_issuer, sso_subject) where sso_issuer is not null;
