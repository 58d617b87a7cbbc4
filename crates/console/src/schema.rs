//! `GET /schema`: the exposed schemas' tables and views, their columns with
//! the types `plinth gen types typescript` prints, keys and foreign keys —
//! all from the REST gateway's own schema cache, so the console shows what
//! the API serves.

use axum::extract::State;
use axum::response::{IntoResponse, Json, Response};
use plinth_rest::schema_cache::TableKind;
use serde_json::{Value, json};

use crate::{ConsoleState, Result};

pub(crate) async fn relations(State(state): State<ConsoleState>) -> Result<Response> {
    let cache = state.inner.rest.schema_cache();
    let ts = plinth_rest::typegen::column_types(&state.inner.db.owner, &cache).await?;
    let mut tables: Vec<_> = cache.tables.values().collect();
    tables.sort_by(|a, b| (&a.name.schema, &a.name.name).cmp(&(&b.name.schema, &b.name.name)));
    let relations: Vec<Value> = tables
        .into_iter()
        .map(|t| {
            let columns: Vec<Value> = t
                .columns
                .iter()
                .map(|c| {
                    let key = (t.name.schema.clone(), t.name.name.clone(), c.name.clone());
                    json!({
                        "name": c.name,
                        "type": c.ty.name,
                        "pretty_type": c.pretty_type,
                        "ts_type": ts.get(&key).map_or("unknown", String::as_str),
                        "nullable": c.nullable,
                        "default": c.default,
                        "generated": c.generated,
                    })
                })
                .collect();
            let foreign_keys: Vec<Value> = cache
                .foreign_keys
                .iter()
                .filter(|fk| fk.table == t.name)
                .map(|fk| {
                    json!({
                        "name": fk.name,
                        "columns": fk.columns,
                        "references": {
                            "schema": fk.ref_table.schema,
                            "table": fk.ref_table.name,
                            "columns": fk.ref_columns,
                        },
                    })
                })
                .collect();
            let kind = match t.kind {
                TableKind::View | TableKind::MaterializedView => "view",
                _ => "table",
            };
            json!({
                "schema": t.name.schema,
                "name": t.name.name,
                "kind": kind,
                "primary_key": t.primary_key,
                "columns": columns,
                "foreign_keys": foreign_keys,
            })
        })
        .collect();
    Ok(Json(json!({ "schemas": cache.schemas, "relations": relations })).into_response())
}
