-- An export's archive, in parts of at most 1 MiB in order: written as the job ends, read one part
-- at a time by the download, deleted when the export expires (and with its enterprise).
create table enterprise_export_parts (
    export_id uuid not null references enterprise_exports (id) on delete cascade,
    seq integer not null,
    bytes bytea not null,
    primary key (export_id, seq)
);
