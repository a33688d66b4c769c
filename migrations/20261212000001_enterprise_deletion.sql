-- Deletion with a recovery window (docs/api.md, "A tenant's life"): `DELETE /enterprises/{id}`
-- suspends the enterprise (`is_active` false, the value before kept to restore) and schedules its
-- purge; `POST …/restore` undoes it within the window, `POST …/purge` or the purge task ends it.
alter table enterprises
    add column deletion_scheduled_at timestamptz,
    add column purge_after timestamptz,
    add column active_before_deletion boolean;
