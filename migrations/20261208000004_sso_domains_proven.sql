-- A proven domain belongs to one enterprise (20261208000003).
create unique index sso_domains_proven on sso_domains (domain) where verified_at is not null;
