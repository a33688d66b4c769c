-- Provisioning to RFC 7643 (issue 44): the attributes of a person's SCIM resource that the
-- platform does not keep elsewhere (displayName, name and its parts, emails, preferredLanguage),
-- as the enterprise's directory last set them, with the platform's name and language they were
-- set beside (a rename or a language change in the app outdates them). Null: never provisioned,
-- the resource is derived from the account.
alter table users add column scim_attributes jsonb;
