//! `project_admin`: the project's own powerful login (the platform's
//! `postgres`, which is no superuser there), made by the platform migration
//! `0003_project_admin.sql`. The functions' `SUPABASE_DB_URL` and the
//! console's SQL editor log in as it; Plinth itself keeps its own login.
//!
//! What it may reach is granted again at the end of every migration run
//! ([`grant`]), because the project's migrations run after the platform's
//! and make new schemas and tables:
//!
//! * the project's schemas (`public`, and any schema that is neither the
//!   platform's, Plinth's private ones nor an extension's): it uses them and
//!   makes objects of its own in them (which it owns, DDL and all), and has
//!   every privilege but `TRIGGER` on the tables the migrations made there,
//!   every privilege on their sequences and may execute their functions,
//!   with default privileges for what Plinth's login makes there later. It
//!   does not own those schemas, nor the migrations' objects in them, where
//!   the platform's `postgres` does: Plinth's migrations and services run as
//!   a superuser, and a trigger of project_admin's on a table they write, or
//!   an object it replaced (an owner of a schema may drop anything in it)
//!   under a `security definer` function of theirs, would run as that
//!   superuser. Neither has it a trigger there as one of the API roles
//!   (their default grants, as on the platform, are "all"). Schema changes
//!   of the migrations' tables go through `migrations/`;
//! * the platform's [`PLATFORM_SCHEMAS`]: usage, and every privilege on
//!   their tables but `TRIGGER` (Plinth's services write those tables as
//!   Plinth's own login: a trigger of project_admin's there would run as
//!   that login), and on their sequences;
//! * `extensions`: usage (pgcrypto and the like);
//! * nothing in [`PRIVATE_SCHEMAS`] (operators and their sessions, sealed
//!   secrets, migration tracking), nor in objects that belong to an
//!   extension;
//! * and should it be a superuser, or hold `pg_execute_server_program`,
//!   `pg_read_server_files` or `pg_write_server_files` (or, up to
//!   PostgreSQL 15, CREATEROLE, with which it could grant itself those),
//!   that is taken back.

use sqlx::PgPool;

/// The role's name.
pub const ROLE: &str = "project_admin";

/// The platform's schemas whose tables project_admin reaches (as the
/// platform's `postgres`, a member of the auth and storage admin roles).
pub const PLATFORM_SCHEMAS: [&str; 3] = ["auth", "storage", "realtime"];

/// Plinth's own schemas, of which project_admin gets nothing: migration
/// tracking and the REST gateway's hooks (`plinth`), the console's
/// operators, sessions and SQL history (`plinth_console`), the functions'
/// sealed secrets (`plinth_functions`), the simulated payment provider's
/// state (`functions`).
pub const PRIVATE_SCHEMAS: [&str; 4] =
    ["plinth", "plinth_console", "plinth_functions", "functions"];

/// Schemas project_admin may use but does not own.
pub const SHARED_SCHEMAS: [&str; 1] = ["extensions"];

/// The password project_admin logs in with over TCP, derived from the JWT
/// secret (every node sharing the database shares the secret).
pub fn password(secret: &crate::JwtSecret) -> String {
    crate::hex(&secret.derive_key("project_admin password"))
}

/// Gives project_admin what it may reach in the database `pool` is on (see
/// the module's documentation). Idempotent, and quick when nothing changed:
/// only what is missing is granted. Does nothing when the role does not
/// exist (a database without the platform migrations). What Plinth's login
/// may not grant is left out with a warning in the server's log.
pub async fn grant(pool: &PgPool) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    // Nodes starting together take turns (concurrent grants on one object
    // fail with "tuple concurrently updated").
    sqlx::query("select pg_advisory_xact_lock(7270515)")
        .execute(&mut *tx)
        .await?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(grants_sql()))
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

fn sql_array(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("array[{}]::text[]", quoted.join(", "))
}

pub(crate) fn grants_sql() -> String {
    GRANTS
        .replace("$PLATFORM", &sql_array(&PLATFORM_SCHEMAS))
        .replace("$PRIVATE", &sql_array(&PRIVATE_SCHEMAS))
        .replace("$SHARED", &sql_array(&SHARED_SCHEMAS))
}

/// The grants, as one block. `$PLATFORM`, `$PRIVATE` and `$SHARED` are the
/// lists above.
const GRANTS: &str = r#"
do $grants$
declare
  admin oid := (select oid from pg_roles where rolname = 'project_admin');
  -- (no TRIGGER anywhere: a trigger runs as whoever writes the table)
  table_privileges constant text[] := array['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES'];
  sequence_all constant text[] := array['USAGE', 'SELECT', 'UPDATE'];
  -- project_admin and the roles it may become
  roles constant oid[] := array(select oid from pg_roles
                                 where rolname in ('project_admin', 'anon', 'authenticated', 'service_role'));
  s record;
  o record;
begin
  if admin is null then
    return;
  end if;
  -- What it must never hold (a role made by hand, or a CREATEROLE of a
  -- PostgreSQL up to 15 that let it grant itself a server role), taken back.
  begin
    if exists (select from pg_roles r where r.oid = admin and (r.rolsuper or r.rolreplication
                 or (r.rolcreaterole and current_setting('server_version_num')::int < 160000))) then
      execute 'alter role project_admin nosuperuser noreplication'
        || case when current_setting('server_version_num')::int < 160000 then ' nocreaterole' else '' end;
    end if;
    for o in
      select r.rolname from pg_auth_members m join pg_roles r on r.oid = m.roleid
       where m.member = admin
         and (r.rolsuper or r.rolname in ('pg_execute_server_program', 'pg_read_server_files', 'pg_write_server_files'))
    loop
      execute format('revoke %I from project_admin', o.rolname);
    end loop;
  exception when insufficient_privilege then
    raise warning 'project_admin: cannot check its attributes and server roles (%)', sqlerrm;
  end;
  if exists (select from pg_roles r where r.rolname in ('pg_execute_server_program', 'pg_read_server_files', 'pg_write_server_files')
               and pg_has_role(admin, r.oid, 'member'))
     or exists (select from pg_roles r where r.oid = admin and r.rolsuper) then
    raise warning 'project_admin is a superuser or holds a server role: functions and the console''s SQL editor can reach the host';
  end if;
  for s in
    select n.oid, n.nspname, n.nspowner,
           case when n.nspname = any($PLATFORM) then 'platform'
                when n.nspname = any($SHARED) then 'shared'
                else 'project' end as kind
      from pg_namespace n
     where n.nspname <> all($PRIVATE)
       and n.nspname not like 'pg\_%'
       and n.nspname <> 'information_schema'
       -- (a schema an extension made is the extension's)
       and not exists (select from pg_depend d
                        where d.classid = 'pg_namespace'::regclass and d.objid = n.oid and d.deptype = 'e')
     order by n.nspname
  loop
    begin
      if not has_schema_privilege(admin, s.oid, 'USAGE') then
        execute format('grant usage on schema %I to project_admin', s.nspname);
      end if;
      if s.kind = 'project' and not has_schema_privilege(admin, s.oid, 'CREATE') then
        execute format('grant create on schema %I to project_admin', s.nspname);
      end if;
      if s.kind = 'shared' then
        continue;
      end if;
      -- Tables, views, materialized views, foreign and partitioned tables,
      -- and sequences, but for those of extensions and project_admin's own.
      for o in
        select c.oid::regclass::text as name, c.relkind,
               array(select a.privilege_type from aclexplode(c.relacl) a where a.grantee = admin) as held
          from pg_class c
         where c.relnamespace = s.oid
           and c.relkind in ('r', 'v', 'm', 'f', 'p', 'S')
           and c.relowner <> admin
           and not exists (select from pg_depend d
                            where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
      loop
        if o.relkind = 'S' then
          if not o.held @> sequence_all then
            execute format('grant usage, select, update on sequence %s to project_admin', o.name);
          end if;
        elsif not o.held @> table_privileges then
          execute format('grant select, insert, update, delete, truncate, references on table %s to project_admin', o.name);
        end if;
      end loop;
      -- No trigger for it on a table it does not own, not even as an API
      -- role (whose default grants, as on the platform, are "all").
      for o in
        select c.oid::regclass::text as name
          from pg_class c
         where c.relnamespace = s.oid
           and c.relkind in ('r', 'v', 'm', 'f', 'p')
           and c.relowner <> admin
           and exists (select from aclexplode(c.relacl) a
                        where a.privilege_type = 'TRIGGER' and a.grantee = any(roles))
      loop
        execute format('revoke trigger on table %s from project_admin, anon, authenticated, service_role', o.name);
      end loop;
      if exists (select from pg_default_acl d, aclexplode(d.defaclacl) a
                  where d.defaclrole = (select oid from pg_roles where rolname = current_user)
                    and d.defaclnamespace = s.oid and d.defaclobjtype = 'r'
                    and a.privilege_type = 'TRIGGER' and a.grantee = any(roles)) then
        execute format('alter default privileges in schema %I revoke trigger on tables from project_admin, anon, authenticated, service_role', s.nspname);
      end if;
      if s.kind <> 'project' then
        continue;
      end if;
      for o in
        select p.oid::regprocedure::text as name
          from pg_proc p
         where p.pronamespace = s.oid
           and p.proowner <> admin
           and not exists (select from pg_depend d
                            where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
           and not exists (select from aclexplode(p.proacl) a
                            where a.grantee = admin and a.privilege_type = 'EXECUTE')
      loop
        execute format('grant execute on routine %s to project_admin', o.name);
      end loop;
      -- What Plinth's login makes here later (the project's next migrations).
      if not exists (select from pg_default_acl d, aclexplode(d.defaclacl) a
                      where d.defaclrole = (select oid from pg_roles where rolname = current_user)
                        and d.defaclnamespace = s.oid and d.defaclobjtype = 'r'
                        and a.grantee = admin and a.privilege_type = 'REFERENCES') then
        execute format('alter default privileges in schema %I grant select, insert, update, delete, truncate, references on tables to project_admin', s.nspname);
        execute format('alter default privileges in schema %I grant all on sequences to project_admin', s.nspname);
        execute format('alter default privileges in schema %I grant execute on routines to project_admin', s.nspname);
      end if;
    exception when insufficient_privilege or feature_not_supported then
      raise warning 'project_admin: schema % left as it is (%)', s.nspname, sqlerrm;
    end;
  end loop;
end
$grants$
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_reach_the_block() {
        let sql = grants_sql();
        assert!(
            !sql.contains("$PLATFORM") && !sql.contains("$PRIVATE") && !sql.contains("$SHARED")
        );
        assert!(sql.contains(
            "array['plinth', 'plinth_console', 'plinth_functions', 'functions']::text[]"
        ));
    }
}
