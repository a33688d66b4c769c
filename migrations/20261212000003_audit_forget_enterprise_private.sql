-- Only the roles granted it forget a purged enterprise's entries (`db::grant_server_role`).
revoke all on function audit_forget_enterprise(uuid) from public;
