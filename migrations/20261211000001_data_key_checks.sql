-- Secrets sealed at rest (backend/src/sealed.rs): each data key of DATA_ENCRYPTION_KEYS seals a
-- known value here the first time a server runs with it. A server whose key of the same version
-- does not open it has the wrong key, and refuses to start instead of locking people out.
create table data_key_checks (
    version integer primary key check (version > 0),
    sealed text not null
);
