-- Single sign-on matches a person by (issuer, subject) once known, not by e-mail alone (issue 41):
-- a subject means something only at the provider that issued it. A person's first single sign-on
-- binds them; another subject from the same issuer for the same address is refused. A row bound
-- before this migration (no issuer) counts as bound at its enterprise's current issuer.
alter table users add column sso_issuer text;
