-- `project_admin`: the project's own powerful login, as the platform's
-- `postgres` role (which is no superuser there). The functions'
-- `SUPABASE_DB_URL` and the console's SQL editor log in as it.
--
--   LOGIN CREATEDB BYPASSRLS, member of anon, authenticated and service_role
--   (so it may `set role` to them), making objects of its own in the
--   project's schemas and reaching the tables there and those of auth,
--   storage and realtime, but owning none of the migrations' objects and
--   adding no trigger to them (granted again after every migration run:
--   crates/db/src/project_admin.rs says why).
--
--   NOSUPERUSER NOREPLICATION, and nothing of pg_read_server_files,
--   pg_write_server_files, pg_execute_server_program, ALTER SYSTEM or
--   Plinth's private schemas (plinth, plinth_console, plinth_functions,
--   functions): it cannot run programs on the host, read or write the
--   server's files, change the server's settings, or read operators,
--   sessions and sealed secrets.
--
--   CREATEROLE on PostgreSQL 16 and later only. Up to 15, a role with
--   CREATEROLE may grant itself any role that is not a superuser,
--   pg_execute_server_program included (a shell on the host), which would
--   undo all of the above.
--
-- Roles belong to the whole cluster: an existing role is kept as it is (see
-- 0001_roles.sql), and a role made by hand before Plinth ran is welcome.

do $$ begin
  if not exists (select from pg_roles where rolname = 'project_admin') then
    if current_setting('server_version_num')::int >= 160000 then
      create role project_admin login nosuperuser inherit createrole createdb bypassrls noreplication;
    else
      create role project_admin login nosuperuser inherit nocreaterole createdb bypassrls noreplication;
    end if;
  end if;
exception
  when duplicate_object or unique_violation then null;
  when insufficient_privilege then
    raise exception 'this login may not create the role project_admin'
      using errcode = '42501',
            hint = 'create it by hand: create role project_admin login nosuperuser createdb bypassrls noreplication; '
                   'grant anon, authenticated, service_role to project_admin; grant project_admin to '
                   || quote_ident(current_user);
end $$;

do $$
declare
  api_role text;
begin
  foreach api_role in array array['anon', 'authenticated', 'service_role'] loop
    if not pg_has_role('project_admin', api_role, 'member') then
      execute format('grant %I to project_admin', api_role);
    end if;
  end loop;
exception
  when duplicate_object or unique_violation then null;
  when insufficient_privilege then
    raise exception 'this login may not make project_admin a member of anon, authenticated and service_role'
      using errcode = '42501',
            hint = 'run as a superuser: grant anon, authenticated, service_role to project_admin';
end $$;

-- Tables, sequences and functions that project_admin itself makes in
-- `public` (from the SQL editor, or a function) reach the API roles as
-- those the migrations make do (0001_roles.sql), as on the platform.
do $$ begin
  alter default privileges for role project_admin in schema public
    grant all on tables to anon, authenticated, service_role;
  alter default privileges for role project_admin in schema public
    grant all on sequences to anon, authenticated, service_role;
  alter default privileges for role project_admin in schema public
    grant execute on functions to anon, authenticated, service_role;
exception when insufficient_privilege then
  raise warning 'tables project_admin makes in public will not reach the API roles by default (%)', sqlerrm
    using hint = 'grant project_admin to ' || quote_ident(current_user) || ', or run this as a superuser';
end $$;
