-- Only the roles granted it call the retention (`db::grant_server_role`), not PUBLIC.
revoke all on function audit_retention(integer) from public;
