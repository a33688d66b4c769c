-- What the enterprise's directory deleting someone through SCIM does (`PUT
-- /enterprises/{id}/provisioning`): `delete` the account (refused while they wrote reports), or
-- `erase` their personal data and keep their work under a pseudonym. The server writes only these
-- two values.
alter table enterprises add column scim_deletion text not null default 'delete';
