//! The OpenAPI (Swagger 2.0) description of the exposed schema, as
//! PostgREST serves it at the root. Built from the schema cache alone.

use serde_json::{Map, Value, json};

use crate::schema_cache::{Returns, SchemaCache, TableKind, TypeRef};

fn json_type(ty: &TypeRef) -> (&'static str, Option<&'static str>) {
    if ty.is_array() {
        return ("array", None);
    }
    match ty.name.as_str() {
        "int2" | "int4" | "int8" => (
            "integer",
            Some(if ty.name == "int8" { "int64" } else { "int32" }),
        ),
        "float4" | "float8" | "numeric" => ("number", None),
        "bool" => ("boolean", None),
        "json" | "jsonb" => ("object", None),
        _ => ("string", None),
    }
}

/// The document for `schema`.
pub fn document(cache: &SchemaCache, schema: &str, base_path: &str) -> Value {
    let mut paths = Map::new();
    let mut definitions = Map::new();
    paths.insert(
        "/".into(),
        json!({"get": {"tags": ["Introspection"], "summary": "OpenAPI description (this document)", "produces": ["application/openapi+json", "application/json"], "responses": {"200": {"description": "OK"}}}}),
    );
    let mut tables: Vec<_> = cache
        .tables
        .values()
        .filter(|t| t.name.schema == schema)
        .collect();
    tables.sort_by(|a, b| a.name.name.cmp(&b.name.name));
    for t in tables {
        let mut props = Map::new();
        let mut required = Vec::new();
        for c in &t.columns {
            let (ty, format) = json_type(&c.ty);
            let mut p = json!({"type": ty, "format": c.pretty_type});
            if let Some(f) = format {
                p["format"] = json!(f);
            }
            if let Some(d) = &c.default {
                p["default"] = json!(d);
            }
            let mut description = c.description.clone().unwrap_or_default();
            if t.primary_key.contains(&c.name) {
                description.push_str("\n\nNote:\nThis is a Primary Key.<pk/>");
            }
            if !description.is_empty() {
                p["description"] = json!(description.trim());
            }
            props.insert(c.name.clone(), p);
            if !c.nullable && c.default.is_none() && !c.generated {
                required.push(json!(c.name));
            }
        }
        let mut def = json!({"type": "object", "properties": props});
        if !required.is_empty() {
            def["required"] = Value::Array(required);
        }
        if let Some(d) = &t.description {
            def["description"] = json!(d);
        }
        definitions.insert(t.name.name.clone(), def);
        let name = &t.name.name;
        let mut ops = json!({
            "get": {"tags": [name], "parameters": [{"$ref": "#/parameters/select"}, {"$ref": "#/parameters/order"}, {"$ref": "#/parameters/range"}, {"$ref": "#/parameters/offset"}, {"$ref": "#/parameters/limit"}, {"$ref": "#/parameters/preferCount"}],
                    "responses": {"200": {"description": "OK", "schema": {"type": "array", "items": {"$ref": format!("#/definitions/{name}")}}}, "206": {"description": "Partial Content"}}},
        });
        if t.kind != TableKind::MaterializedView {
            ops["post"] = json!({"tags": [name], "parameters": [{"in": "body", "name": "body", "required": false, "schema": {"$ref": format!("#/definitions/{name}")}}, {"$ref": "#/parameters/select"}, {"$ref": "#/parameters/preferPost"}], "responses": {"201": {"description": "Created"}}});
            ops["patch"] = json!({"tags": [name], "parameters": [{"in": "body", "name": "body", "required": false, "schema": {"$ref": format!("#/definitions/{name}")}}, {"$ref": "#/parameters/preferReturn"}], "responses": {"204": {"description": "No Content"}}});
            ops["delete"] = json!({"tags": [name], "parameters": [{"$ref": "#/parameters/preferReturn"}], "responses": {"204": {"description": "No Content"}}});
        }
        paths.insert(format!("/{name}"), ops);
    }
    let mut functions: Vec<_> = cache
        .functions
        .values()
        .flatten()
        .filter(|f| f.name.schema == schema)
        .collect();
    functions.sort_by(|a, b| a.name.name.cmp(&b.name.name));
    for f in functions {
        if f.row_arg_of.is_some() {
            continue;
        }
        let mut props = Map::new();
        let mut required = Vec::new();
        for p in &f.params {
            let (ty, _) = json_type(&p.ty);
            props.insert(p.name.clone(), json!({"type": ty, "format": p.ty.name}));
            if !p.has_default {
                required.push(json!(p.name));
            }
        }
        let returns = match &f.returns {
            Returns::Void => "void".to_owned(),
            Returns::Scalar(t) => t.name.clone(),
            Returns::Rows { .. } => "rows".to_owned(),
        };
        paths.insert(
            format!("/rpc/{}", f.name.name),
            json!({
                "post": {
                    "tags": ["(rpc) ".to_owned() + &f.name.name],
                    "summary": f.description.clone().unwrap_or_default(),
                    "produces": ["application/json", "application/vnd.pgrst.object+json"],
                    "parameters": [{"in": "body", "name": "args", "required": true, "schema": {"type": "object", "required": required, "properties": props}}],
                    "responses": {"200": {"description": format!("OK ({returns})")}},
                }
            }),
        );
    }
    json!({
        "swagger": "2.0",
        "info": {"title": "Plinth REST API", "description": "PostgREST-compatible API of the exposed schema", "version": env!("CARGO_PKG_VERSION")},
        "basePath": base_path,
        "schemes": ["http", "https"],
        "consumes": ["application/json", "application/vnd.pgrst.object+json", "text/csv"],
        "produces": ["application/json", "application/vnd.pgrst.object+json", "text/csv"],
        "paths": paths,
        "definitions": definitions,
        "parameters": {
            "select": {"name": "select", "description": "Filtering Columns", "required": false, "in": "query", "type": "string"},
            "order": {"name": "order", "description": "Ordering", "required": false, "in": "query", "type": "string"},
            "range": {"name": "Range", "description": "Limiting and Pagination", "required": false, "in": "header", "type": "string"},
            "offset": {"name": "offset", "description": "Limiting and Pagination", "required": false, "in": "query", "type": "string"},
            "limit": {"name": "limit", "description": "Limiting and Pagination", "required": false, "in": "query", "type": "string"},
            "preferCount": {"name": "Prefer", "in": "header", "type": "string", "enum": ["count=none"]},
            "preferPost": {"name": "Prefer", "in": "header", "type": "string", "enum": ["return=representation", "return=minimal", "return=none", "resolution=ignore-duplicates", "resolution=merge-duplicates"]},
            "preferReturn": {"name": "Prefer", "in": "header", "type": "string", "enum": ["return=representation", "return=minimal", "return=none"]},
        },
    })
}
