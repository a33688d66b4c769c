-- Provisioning (SCIM 2.0, issue 26): the id an enterprise's identity provider knows a person by
-- (`externalId`), unique within the enterprise.
alter table users add column scim_external_id text;
create unique index users_scim_external_id_idx on users (enterprise_id, scim_external_id) where scim_external_id is not null;
