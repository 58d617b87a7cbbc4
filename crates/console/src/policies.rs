//! Row-level security: per table whether it is on, every policy, and "who
//! can do what" — each role × command asked of PostgreSQL itself
//! (`has_any_column_privilege` / `has_table_privilege`, `rolbypassrls`, the
//! policies that name the role or `public`). Names come from the catalog, never from the request: a
//! request's schema and table are looked up and the catalog's quoted name
//! is what any SQL carries.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Json, Response};
use serde_json::{Map, Value, json};

use crate::{ConsoleError, ConsoleState, Result, TableSwitch, query_map};

/// The API's roles, in the order the matrix shows them.
const ROLES: [&str; 3] = ["anon", "authenticated", "service_role"];
const COMMANDS: [&str; 4] = ["select", "insert", "update", "delete"];

fn schema_param(query: &std::collections::HashMap<String, String>) -> String {
    query
        .get("schema")
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "public".to_owned())
}

/// `GET /policies?schema=`.
pub(crate) async fn list(
    State(state): State<ConsoleState>,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let schema = schema_param(&query_map(query.as_deref()));
    let db = &state.inner.db.owner;
    let tables: Vec<(String, bool, bool)> = sqlx::query_as(
        "select c.relname::text, c.relrowsecurity, c.relforcerowsecurity
           from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = $1 and c.relkind in ('r', 'p')
          order by c.relname",
    )
    .bind(&schema)
    .fetch_all(db)
    .await?;
    let policies: Vec<(String, sqlx::types::Json<Value>)> = sqlx::query_as(
        "select c.relname::text, jsonb_build_object('name', p.polname::text,
                'command',
                case p.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT'
                              when 'w' then 'UPDATE' when 'd' then 'DELETE' else 'ALL' end,
                'permissive', p.polpermissive,
                'roles', case when p.polroles = '{0}' then array['public']
                     else array(select r.rolname::text from pg_roles r
                                 where r.oid = any (p.polroles) order by 1) end,
                'using', pg_get_expr(p.polqual, p.polrelid),
                'with_check', pg_get_expr(p.polwithcheck, p.polrelid))
           from pg_policy p
           join pg_class c on c.oid = p.polrelid
           join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = $1
          order by c.relname, p.polname",
    )
    .bind(&schema)
    .fetch_all(db)
    .await?;
    let out: Vec<Value> = tables
        .into_iter()
        .map(|(name, enabled, forced)| {
            let own: Vec<&Value> = policies
                .iter()
                .filter(|p| p.0 == name)
                .map(|p| &p.1.0)
                .collect();
            json!({
                "schema": schema,
                "name": name,
                "rls_enabled": enabled,
                "rls_forced": forced,
                "policies": own,
            })
        })
        .collect();
    Ok(Json(json!({ "tables": out })).into_response())
}

/// The catalog's own quoted name of a table (`"public"."todos"`), or 404.
async fn quoted_table(state: &ConsoleState, schema: &str, table: &str) -> Result<(u32, String)> {
    let found: Option<(sqlx::postgres::types::Oid, String)> = sqlx::query_as(
        "select c.oid, format('%I.%I', n.nspname, c.relname)
           from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = $1 and c.relname = $2 and c.relkind in ('r', 'p')",
    )
    .bind(schema)
    .bind(table)
    .fetch_optional(&state.inner.db.owner)
    .await?;
    found
        .map(|(oid, name)| (oid.0, name))
        .ok_or_else(|| ConsoleError::not_found(format!("No table {schema}.{table}")))
}

/// `PUT /policies/rls`: row-level security on or off for one table.
pub(crate) async fn set_rls(State(state): State<ConsoleState>, body: Bytes) -> Result<Response> {
    let TableSwitch {
        schema,
        table,
        enabled,
    } = TableSwitch::parse(&body)?;
    let (_, name) = quoted_table(&state, &schema, &table).await?;
    let switch = if enabled { "enable" } else { "disable" };
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "alter table {name} {switch} row level security"
    )))
    .execute(&state.inner.db.owner)
    .await?;
    tracing::warn!(target: "plinth_console", table = %name, enabled, "console: row-level security switched");
    Ok(Json(json!({ "rls_enabled": enabled })).into_response())
}

/// One role and command: role, command, privileged, limited by RLS, the
/// permissive policies for it, owns the table, privileged on every column.
type MatrixRow = (String, String, bool, bool, Vec<String>, bool, bool);

/// `GET /policies/matrix?schema=&table=`.
pub(crate) async fn matrix(
    State(state): State<ConsoleState>,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let query = query_map(query.as_deref());
    let schema = schema_param(&query);
    let table = query
        .get("table")
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| ConsoleError::bad_request("Name a table: ?table="))?;
    let (oid, _) = quoted_table(&state, &schema, &table).await?;
    // One row per role (that exists) and command: the privilege, whether
    // RLS applies to the role, and the permissive policies for it.
    let rows: Vec<MatrixRow> = sqlx::query_as(
        "select r.rolname::text, cmd,
                case when cmd = 'delete' then has_table_privilege(r.oid, $1::oid, cmd)
                     else has_any_column_privilege(r.oid, $1::oid, cmd) end as privileged,
                c.relrowsecurity and not r.rolbypassrls
                  and not (r.rolsuper) as limited,
                array(select p.polname::text from pg_policy p
                       where p.polrelid = $1::oid and p.polpermissive
                         and (p.polroles = '{0}' or r.oid = any (p.polroles)
                              or exists (select 1 from pg_auth_members m
                                          where m.member = r.oid and m.roleid = any (p.polroles)))
                         and p.polcmd in ('*', case cmd when 'select' then 'r' when 'insert' then 'a'
                                                        when 'update' then 'w' else 'd' end)
                       order by 1) as policies,
                c.relowner = r.oid as owns,
                has_table_privilege(r.oid, $1::oid, cmd) as whole_table
           from pg_roles r
           cross join unnest($2::text[]) as cmd
           join pg_class c on c.oid = $1::oid
          where r.rolname = any ($3::text[])",
    )
    .bind(sqlx::postgres::types::Oid(oid))
    .bind(COMMANDS.as_slice())
    .bind(ROLES.as_slice())
    .fetch_all(&state.inner.db.owner)
    .await?;
    let mut cells = Map::new();
    for (role, command, privileged, limited, policies, owns, whole_table) in rows {
        let (access, mut reason) = if !privileged {
            (
                "none",
                format!(
                    "{role} has no {} privilege on the table",
                    command.to_uppercase()
                ),
            )
        } else if !limited || owns {
            (
                "all",
                if owns {
                    format!("{role} owns the table")
                } else {
                    format!("row-level security does not limit {role} here")
                },
            )
        } else if policies.is_empty() {
            (
                "none",
                format!("row-level security is on and no policy lets {role} {command}"),
            )
        } else {
            ("policy", format!("rows that {} allow", policies.join(", ")))
        };
        if privileged && !whole_table {
            reason.push_str(" (some columns only)");
        }
        let role_cells = cells
            .entry(role)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(map) = role_cells {
            map.insert(
                command,
                json!({ "access": access, "policies": policies, "reason": reason }),
            );
        }
    }
    let roles: Vec<&str> = ROLES
        .iter()
        .copied()
        .filter(|r| cells.contains_key(*r))
        .collect();
    Ok(Json(json!({ "roles": roles, "commands": COMMANDS, "cells": cells })).into_response())
}
