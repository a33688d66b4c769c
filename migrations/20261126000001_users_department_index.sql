-- Department members are looked up by department (GET /enterprises/{id}/departments, dashboards):
-- without this index that read scanned every user of the platform, so it slowed as tenants grew.
create index users_department_idx on users (department_id) where department_id is not null;
