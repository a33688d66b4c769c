-- An enterprise's exports, newest first; and the jobs waiting for an instance.
create index enterprise_exports_enterprise_idx on enterprise_exports (enterprise_id, created_at desc);
