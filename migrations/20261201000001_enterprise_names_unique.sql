-- Enterprise names are unique across the platform, compared ignoring case and accents
-- ("Acme Industries", "ACME industries" and "Acmé Industries" are one name). The comparison is an
-- ICU collation at primary strength (base letters only); the column keeps the default collation,
-- so sorting and ILIKE search are unchanged. Creating a collation needs only CREATE on the schema,
-- which the database's owner (the application's role, no superuser) has on public.
create collation if not exists public.enterprise_name (provider = icu, locale = 'und-u-ks-level1', deterministic = false);

-- The server trims names; any row written otherwise is trimmed too, so that " Acme" is "Acme".
update enterprises set name = btrim(name, E' \t\r\n') where name <> btrim(name, E' \t\r\n') and btrim(name, E' \t\r\n') <> '';

-- Names that already collide are made distinct first, so that this never fails on a live
-- database: the oldest keeps its name, each later one gets the first free " (2)", " (3)", ...
do $$
declare
    dup record;
    n integer;
    candidate text;
begin
    for dup in
        select id, name from (
            select id, name, created_at,
                   row_number() over (partition by name collate enterprise_name order by created_at, id) as nth
            from enterprises
        ) ranked
        where nth > 1
        order by created_at, id
    loop
        n := 2;
        loop
            candidate := dup.name || ' (' || n || ')';
            exit when not exists (select 1 from enterprises where name collate enterprise_name = candidate collate enterprise_name);
            n := n + 1;
        end loop;
        update enterprises set name = candidate, updated_at = now() where id = dup.id;
    end loop;
end $$;

create unique index enterprises_name_key on enterprises (name collate enterprise_name);
