-- The import list reads the latest first.
create index enterprise_imports_created_idx on enterprise_imports (created_at desc);
