-- Single sign-on and second factors (issue 41): with `require_mfa`, a sign-in through the provider
-- must carry the provider's word that it checked more than a password (`amr` holding `mfa`, or the
-- multi-factor `acr` asked for with `acr_values`); otherwise the platform asks for its own factor
-- (and has the person set one up if they have none). A person who has a factor of ours is asked
-- for it whenever the provider did not assert one, whatever this setting.
alter table enterprise_sso add column require_mfa boolean not null default false;
