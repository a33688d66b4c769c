-- An enterprise's own limits (`PUT /enterprises/{id}/limits`); null takes the platform's default
-- (TENANT_LIMIT_PEOPLE, TENANT_LIMIT_STORAGE_BYTES, TENANT_LIMIT_API_CALLS_PER_MINUTE), which may
-- be none.
alter table enterprises
    add column limit_people integer,
    add column limit_storage_bytes bigint,
    add column limit_api_calls_per_minute integer;
