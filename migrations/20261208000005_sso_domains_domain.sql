-- Claims are looked up by domain (the sign-in page's question, a new claim's check).
create index sso_domains_domain_idx on sso_domains (domain);
