-- A provider must say the address is verified (`email_verified: true`); an enterprise whose
-- provider leaves the claim out says so here (an explicit `false` is refused all the same).
alter table enterprise_sso add column accept_unverified_email boolean not null default false;
