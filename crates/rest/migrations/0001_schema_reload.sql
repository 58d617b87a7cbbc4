-- Schema cache reloads after DDL.
--
-- The REST gateway keeps a cache of the exposed schemas (tables, columns,
-- keys, functions). After any DDL statement or drop, this event trigger sends
-- `NOTIFY pgrst, 'reload schema'`, the same message PostgREST listens for;
-- every Plinth node receives it and rebuilds its cache off the request path.
-- Operators may send the same notification by hand.
--
-- Event triggers need a superuser. When the migrating role is not one (a
-- managed Postgres), the trigger is skipped with a notice and reloads are
-- left to `NOTIFY pgrst, 'reload schema'`.

create schema if not exists plinth;

create or replace function plinth.rest_notify_schema_change() returns event_trigger
language plpgsql
as $$
begin
  notify pgrst, 'reload schema';
end
$$;

do $$
begin
  drop event trigger if exists plinth_rest_ddl_end;
  drop event trigger if exists plinth_rest_sql_drop;
  create event trigger plinth_rest_ddl_end on ddl_command_end
    execute function plinth.rest_notify_schema_change();
  create event trigger plinth_rest_sql_drop on sql_drop
    execute function plinth.rest_notify_schema_change();
exception when insufficient_privilege then
  raise notice 'not a superuser: schema reload after DDL is off; use NOTIFY pgrst, ''reload schema''';
end
$$;
