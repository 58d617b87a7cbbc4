//! `plinth gen types typescript`: the exposed schemas as a TypeScript
//! `Database` type, in the shape of the platform's own generator, so that
//! `createClient<Database>()` of the official client is typed end to end
//! (rows, inserts, updates, embeds through `Relationships`, RPC arguments
//! and results).
//!
//! It reads the same schema cache the gateway serves from, plus the few
//! catalog facts only types need (enums, identity columns, unique keys for
//! one-to-one relationships, view updatability, composite types).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

use sqlx::{PgPool, Row};

use crate::schema_cache::{Returns, SchemaCache, TableKind, TypeRef};

/// Catalog facts for types that the gateway's cache does not keep.
#[derive(Debug, Default)]
struct Extra {
    /// (schema, enum) -> labels in order.
    enums: BTreeMap<(String, String), Vec<String>>,
    /// (schema, composite) -> attributes.
    composites: BTreeMap<(String, String), Vec<(String, TypeRef)>>,
    /// (schema, table, column) -> 'a' (always) or 'd' (by default).
    identity: HashMap<(String, String, String), String>,
    /// (schema, table) -> sets of columns that are unique (primary key or unique index).
    unique: HashMap<(String, String), Vec<BTreeSet<String>>>,
    /// (schema, view) -> (insertable, updatable).
    updatable: HashMap<(String, String), (bool, bool)>,
}

const EXTRA_SQL: &str = r#"
select 'enum' as kind, n.nspname::text as schema, t.typname::text as name,
       array_agg(e.enumlabel::text order by e.enumsortorder) as items, null::text as extra
  from pg_type t join pg_namespace n on n.oid = t.typnamespace join pg_enum e on e.enumtypid = t.oid
 where n.nspname = any($1) group by n.nspname, t.typname
union all
select 'identity', n.nspname, c.relname, array[a.attname::text], a.attidentity::text
  from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
 where n.nspname = any($1) and a.attidentity <> '' and a.attnum > 0 and not a.attisdropped
union all
select 'unique', n.nspname, c.relname,
       array(select a.attname::text from unnest(i.indkey) k join pg_attribute a
               on a.attrelid = i.indrelid and a.attnum = k), null
  from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
 where n.nspname = any($1) and i.indisunique and i.indpred is null
union all
select 'updatable', n.nspname, c.relname, array[]::text[],
       pg_relation_is_updatable(c.oid, false)::text
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
 where n.nspname = any($1) and c.relkind = 'v'
union all
select 'composite', n.nspname, t.typname,
       array(select a.attname::text || ' ' || tn.nspname::text || '.' || at.typname::text
               from pg_attribute a join pg_type at on at.oid = a.atttypid
               join pg_namespace tn on tn.oid = at.typnamespace
              where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped order by a.attnum), null
  from pg_type t join pg_namespace n on n.oid = t.typnamespace join pg_class c on c.oid = t.typrelid
 where n.nspname = any($1) and t.typtype = 'c' and c.relkind = 'c'
"#;

async fn load_extra(pool: &PgPool, schemas: &[String]) -> Result<Extra, sqlx::Error> {
    let mut extra = Extra::default();
    for row in sqlx::query(EXTRA_SQL).bind(schemas).fetch_all(pool).await? {
        let kind: String = row.try_get("kind")?;
        let schema: String = row.try_get("schema")?;
        let name: String = row.try_get("name")?;
        let items: Vec<String> = row.try_get("items")?;
        let more: Option<String> = row.try_get("extra")?;
        match kind.as_str() {
            "enum" => {
                extra.enums.insert((schema, name), items);
            }
            "identity" => {
                if let (Some(column), Some(how)) = (items.into_iter().next(), more) {
                    extra.identity.insert((schema, name, column), how);
                }
            }
            "unique" => extra
                .unique
                .entry((schema, name))
                .or_default()
                .push(items.into_iter().collect()),
            "updatable" => {
                let bits: i32 = more.and_then(|b| b.parse().ok()).unwrap_or(0);
                extra
                    .updatable
                    .insert((schema, name), (bits & 8 != 0, bits & 4 != 0));
            }
            "composite" => {
                let attributes = items
                    .iter()
                    .filter_map(|item| {
                        let (attr, ty) = item.split_once(' ')?;
                        let (ts, tn) = ty.split_once('.')?;
                        Some((
                            attr.to_owned(),
                            TypeRef {
                                schema: ts.to_owned(),
                                name: tn.to_owned(),
                            },
                        ))
                    })
                    .collect();
                extra.composites.insert((schema, name), attributes);
            }
            _ => {}
        }
    }
    Ok(extra)
}

/// The `Database` type of `schemas`, as TypeScript source.
pub async fn typescript(pool: &PgPool, schemas: &[String]) -> Result<String, sqlx::Error> {
    let cache = SchemaCache::load(pool, schemas).await?;
    let extra = load_extra(pool, schemas).await?;
    Ok(render(&cache, &extra, schemas))
}

/// The TypeScript type `plinth gen types typescript` gives each column of
/// `cache`'s tables and views, keyed by (schema, relation, column).
pub async fn column_types(
    pool: &PgPool,
    cache: &SchemaCache,
) -> Result<HashMap<(String, String, String), String>, sqlx::Error> {
    let extra = load_extra(pool, &cache.schemas).await?;
    let mut out = HashMap::new();
    for table in cache.tables.values() {
        for column in &table.columns {
            out.insert(
                (
                    table.name.schema.clone(),
                    table.name.name.clone(),
                    column.name.clone(),
                ),
                ts_type(&column.ty, &extra, &cache.schemas),
            );
        }
    }
    Ok(out)
}

/// A property name, quoted when it is not a plain identifier.
fn key(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain { name.to_owned() } else { string(name) }
}

/// A TypeScript string literal.
fn string(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "\"\"".to_owned())
}

fn ts_type(ty: &TypeRef, extra: &Extra, schemas: &[String]) -> String {
    if let Some(element) = ty.name.strip_prefix('_') {
        let inner = ts_type(
            &TypeRef {
                schema: ty.schema.clone(),
                name: element.to_owned(),
            },
            extra,
            schemas,
        );
        return if inner.contains(' ') {
            format!("({inner})[]")
        } else {
            format!("{inner}[]")
        };
    }
    if schemas.contains(&ty.schema) {
        let k = (ty.schema.clone(), ty.name.clone());
        if extra.enums.contains_key(&k) {
            return format!(
                "Database[{}][\"Enums\"][{}]",
                string(&ty.schema),
                string(&ty.name)
            );
        }
        if extra.composites.contains_key(&k) {
            return format!(
                "Database[{}][\"CompositeTypes\"][{}]",
                string(&ty.schema),
                string(&ty.name)
            );
        }
    }
    match ty.name.as_str() {
        "bool" => "boolean",
        "int2" | "int4" | "int8" | "float4" | "float8" | "numeric" | "oid" | "money" => "number",
        "json" | "jsonb" => "Json",
        "void" => "undefined",
        "record" => "Record<string, unknown>",
        "text" | "varchar" | "bpchar" | "char" | "name" | "citext" | "uuid" | "date" | "time"
        | "timetz" | "timestamp" | "timestamptz" | "interval" | "bytea" | "inet" | "cidr"
        | "macaddr" | "tsvector" | "tsquery" | "int4range" | "int8range" | "numrange"
        | "tsrange" | "tstzrange" | "daterange" | "xml" | "bit" | "varbit" => "string",
        _ => "unknown",
    }
    .to_owned()
}

fn render(cache: &SchemaCache, extra: &Extra, schemas: &[String]) -> String {
    let mut out = String::new();
    out.push_str(
        "// Generated by `plinth gen types typescript`. Do not edit: run it again.\n\n\
         export type Json =\n  | string\n  | number\n  | boolean\n  | null\n  | { [key: string]: Json | undefined }\n  | Json[]\n\n\
         export type Database = {\n  __InternalSupabase: {\n    PostgrestVersion: \"13.0.4\"\n  }\n",
    );
    for schema in schemas {
        let _ = writeln!(out, "  {}: {{", key(schema));
        render_relations(&mut out, cache, extra, schemas, schema, false);
        render_relations(&mut out, cache, extra, schemas, schema, true);
        render_functions(&mut out, cache, extra, schemas, schema);
        // Enums
        let enums: Vec<_> = extra
            .enums
            .iter()
            .filter(|((s, _), _)| s == schema)
            .collect();
        if enums.is_empty() {
            out.push_str("    Enums: {\n      [_ in never]: never\n    }\n");
        } else {
            out.push_str("    Enums: {\n");
            for ((_, name), labels) in enums {
                let values: Vec<String> = labels.iter().map(|l| string(l)).collect();
                let _ = writeln!(out, "      {}: {}", key(name), values.join(" | "));
            }
            out.push_str("    }\n");
        }
        let composites: Vec<_> = extra
            .composites
            .iter()
            .filter(|((s, _), _)| s == schema)
            .collect();
        if composites.is_empty() {
            out.push_str("    CompositeTypes: {\n      [_ in never]: never\n    }\n");
        } else {
            out.push_str("    CompositeTypes: {\n");
            for ((_, name), attributes) in composites {
                let _ = writeln!(out, "      {}: {{", key(name));
                for (attr, ty) in attributes {
                    let _ = writeln!(
                        out,
                        "        {}: {} | null",
                        key(attr),
                        ts_type(ty, extra, schemas)
                    );
                }
                out.push_str("      }\n");
            }
            out.push_str("    }\n");
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out.push_str(HELPERS);
    // Constants: enum values at run time.
    out.push_str("\nexport const Constants = {\n");
    for schema in schemas {
        let _ = writeln!(out, "  {}: {{\n    Enums: {{", key(schema));
        for ((_, name), labels) in extra.enums.iter().filter(|((s, _), _)| s == schema) {
            let values: Vec<String> = labels.iter().map(|l| string(l)).collect();
            let _ = writeln!(out, "      {}: [{}],", key(name), values.join(", "));
        }
        out.push_str("    },\n  },\n");
    }
    out.push_str("} as const\n");
    out
}

fn render_relations(
    out: &mut String,
    cache: &SchemaCache,
    extra: &Extra,
    schemas: &[String],
    schema: &str,
    views: bool,
) {
    let mut relations: Vec<_> = cache
        .tables
        .values()
        .filter(|t| t.name.schema == schema)
        .filter(|t| matches!(t.kind, TableKind::View | TableKind::MaterializedView) == views)
        .collect();
    relations.sort_by(|a, b| a.name.name.cmp(&b.name.name));
    let _ = writeln!(out, "    {}: {{", if views { "Views" } else { "Tables" });
    if relations.is_empty() {
        out.push_str("      [_ in never]: never\n");
    }
    for table in relations {
        let tkey = (schema.to_owned(), table.name.name.clone());
        let (insertable, updatable) = if views {
            extra
                .updatable
                .get(&tkey)
                .copied()
                .unwrap_or((false, false))
        } else {
            (true, true)
        };
        let mut columns: Vec<_> = table.columns.iter().collect();
        columns.sort_by(|a, b| a.name.cmp(&b.name));
        let _ = writeln!(out, "      {}: {{", key(&table.name.name));
        out.push_str("        Row: {\n");
        for c in &columns {
            let ty = ts_type(&c.ty, extra, schemas);
            let nullable = if c.nullable || views { " | null" } else { "" };
            let _ = writeln!(out, "          {}: {ty}{nullable}", key(&c.name));
        }
        out.push_str("        }\n");
        if insertable {
            out.push_str("        Insert: {\n");
            for c in &columns {
                let ty = ts_type(&c.ty, extra, schemas);
                let identity = extra
                    .identity
                    .get(&(schema.to_owned(), table.name.name.clone(), c.name.clone()))
                    .map(String::as_str);
                if c.generated || identity == Some("a") {
                    let _ = writeln!(out, "          {}?: never", key(&c.name));
                } else {
                    let optional = c.nullable || c.default.is_some() || identity.is_some();
                    let nullable = if c.nullable { " | null" } else { "" };
                    let _ = writeln!(
                        out,
                        "          {}{}: {ty}{nullable}",
                        key(&c.name),
                        if optional { "?" } else { "" }
                    );
                }
            }
            out.push_str("        }\n");
        }
        if updatable {
            out.push_str("        Update: {\n");
            for c in &columns {
                let ty = ts_type(&c.ty, extra, schemas);
                let identity = extra
                    .identity
                    .get(&(schema.to_owned(), table.name.name.clone(), c.name.clone()))
                    .map(String::as_str);
                if c.generated || identity == Some("a") {
                    let _ = writeln!(out, "          {}?: never", key(&c.name));
                } else {
                    let nullable = if c.nullable { " | null" } else { "" };
                    let _ = writeln!(out, "          {}?: {ty}{nullable}", key(&c.name));
                }
            }
            out.push_str("        }\n");
        }
        // Relationships: foreign keys from this relation.
        let mut fks: Vec<_> = cache
            .foreign_keys
            .iter()
            .filter(|fk| fk.table == table.name)
            .collect();
        fks.sort_by(|a, b| (&a.name, &a.ref_table.name).cmp(&(&b.name, &b.ref_table.name)));
        fks.dedup_by(|a, b| {
            a.name == b.name && a.ref_table == b.ref_table && a.columns == b.columns
        });
        if fks.is_empty() {
            out.push_str("        Relationships: []\n");
        } else {
            out.push_str("        Relationships: [\n");
            for fk in fks {
                let set: BTreeSet<String> = fk.columns.iter().cloned().collect();
                let one_to_one = extra
                    .unique
                    .get(&tkey)
                    .is_some_and(|sets| sets.contains(&set));
                let cols: Vec<String> = fk.columns.iter().map(|c| string(c)).collect();
                let refs: Vec<String> = fk.ref_columns.iter().map(|c| string(c)).collect();
                let _ = writeln!(
                    out,
                    "          {{\n            foreignKeyName: {}\n            columns: [{}]\n            isOneToOne: {one_to_one}\n            referencedRelation: {}\n            referencedColumns: [{}]\n          }},",
                    string(&fk.name),
                    cols.join(", "),
                    string(&fk.ref_table.name),
                    refs.join(", ")
                );
            }
            out.push_str("        ]\n");
        }
        out.push_str("      }\n");
    }
    out.push_str("    }\n");
}

fn render_functions(
    out: &mut String,
    cache: &SchemaCache,
    extra: &Extra,
    schemas: &[String],
    schema: &str,
) {
    let mut names: Vec<_> = cache
        .functions
        .iter()
        .filter(|(name, _)| name.schema == schema)
        .collect();
    names.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let mut rendered = Vec::new();
    for (name, overloads) in names {
        let mut variants = Vec::new();
        for f in overloads {
            // Computed columns and relationships (one unnamed row argument)
            // are reached through their table, not called by name.
            if f.row_arg_of.is_some() || f.params.iter().any(|p| p.name.is_empty()) {
                continue;
            }
            // Trigger functions are run by the database, never called.
            if matches!(&f.returns, Returns::Scalar(t) if t.schema == "pg_catalog"
                && (t.name == "trigger" || t.name == "event_trigger"))
            {
                continue;
            }
            let args = if f.params.is_empty() {
                "Record<PropertyKey, never>".to_owned()
            } else {
                let mut a = String::from("{ ");
                for p in &f.params {
                    let _ = write!(
                        a,
                        "{}{}: {}; ",
                        key(&p.name),
                        if p.has_default { "?" } else { "" },
                        ts_type(&p.ty, extra, schemas)
                    );
                }
                a.push('}');
                a
            };
            let returns = match &f.returns {
                Returns::Void => "undefined".to_owned(),
                Returns::Scalar(ty) => {
                    let t = ts_type(ty, extra, schemas);
                    if f.returns_set { format!("{t}[]") } else { t }
                }
                Returns::Rows { columns, .. } => {
                    let mut r = String::from("{ ");
                    for (c, ty) in columns {
                        // As the platform's generator: result columns are not marked nullable.
                        let _ = write!(r, "{}: {}; ", key(c), ts_type(ty, extra, schemas));
                    }
                    r.push('}');
                    if f.returns_set { format!("{r}[]") } else { r }
                }
            };
            variants.push(format!("{{ Args: {args}; Returns: {returns} }}"));
        }
        variants.sort();
        variants.dedup();
        if !variants.is_empty() {
            rendered.push((name.name.clone(), variants));
        }
    }
    out.push_str("    Functions: {\n");
    if rendered.is_empty() {
        out.push_str("      [_ in never]: never\n");
    }
    for (name, variants) in rendered {
        if variants.len() == 1 {
            let _ = writeln!(out, "      {}: {}", key(&name), variants[0]);
        } else {
            let _ = writeln!(out, "      {}:", key(&name));
            for v in variants {
                let _ = writeln!(out, "        | {v}");
            }
        }
    }
    out.push_str("    }\n");
}

/// Helper types over `Database`, as the platform's generator offers them:
/// `Tables<"name">`, `TablesInsert<…>`, `TablesUpdate<…>`, `Enums<…>`,
/// `CompositeTypes<…>`, for the default schema or `{ schema: … }`.
const HELPERS: &str = r#"
type PublicDatabase = Omit<Database, "__InternalSupabase">
type SchemaName = Exclude<keyof PublicDatabase, never>
type DefaultSchema = PublicDatabase[Extract<SchemaName, "public">]
type SchemaOf<S> = S extends { schema: infer N extends SchemaName } ? PublicDatabase[N] : DefaultSchema
type Relations<S> = SchemaOf<S>["Tables"] & SchemaOf<S>["Views"]

export type Tables<
  NameOrSchema extends keyof (DefaultSchema["Tables"] & DefaultSchema["Views"]) | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName } ? keyof Relations<NameOrSchema> : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? Relations<NameOrSchema>[Name] extends { Row: infer R } ? R : never
  : NameOrSchema extends keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] & DefaultSchema["Views"])[NameOrSchema] extends { Row: infer R } ? R : never
    : never

export type TablesInsert<
  NameOrSchema extends keyof DefaultSchema["Tables"] | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName } ? keyof SchemaOf<NameOrSchema>["Tables"] : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? SchemaOf<NameOrSchema>["Tables"][Name] extends { Insert: infer I } ? I : never
  : NameOrSchema extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][NameOrSchema] extends { Insert: infer I } ? I : never
    : never

export type TablesUpdate<
  NameOrSchema extends keyof DefaultSchema["Tables"] | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName } ? keyof SchemaOf<NameOrSchema>["Tables"] : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? SchemaOf<NameOrSchema>["Tables"][Name] extends { Update: infer U } ? U : never
  : NameOrSchema extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][NameOrSchema] extends { Update: infer U } ? U : never
    : never

export type Enums<
  NameOrSchema extends keyof DefaultSchema["Enums"] | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName } ? keyof SchemaOf<NameOrSchema>["Enums"] : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? SchemaOf<NameOrSchema>["Enums"][Name]
  : NameOrSchema extends keyof DefaultSchema["Enums"] ? DefaultSchema["Enums"][NameOrSchema] : never

export type CompositeTypes<
  NameOrSchema extends keyof DefaultSchema["CompositeTypes"] | { schema: SchemaName },
  Name extends NameOrSchema extends { schema: SchemaName } ? keyof SchemaOf<NameOrSchema>["CompositeTypes"] : never = never,
> = NameOrSchema extends { schema: SchemaName }
  ? SchemaOf<NameOrSchema>["CompositeTypes"][Name]
  : NameOrSchema extends keyof DefaultSchema["CompositeTypes"] ? DefaultSchema["CompositeTypes"][NameOrSchema] : never
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_quoted_only_when_needed() {
        assert_eq!(key("templates"), "templates");
        assert_eq!(key("_x1"), "_x1");
        assert_eq!(key("my-table"), "\"my-table\"");
        assert_eq!(key("1st"), "\"1st\"");
        assert_eq!(key("quote\"d"), "\"quote\\\"d\"");
    }

    #[test]
    fn postgres_types_map_to_typescript() {
        let extra = Extra::default();
        let schemas = vec!["public".to_owned()];
        let cases = [
            ("bool", "boolean"),
            ("int8", "number"),
            ("numeric", "number"),
            ("uuid", "string"),
            ("timestamptz", "string"),
            ("jsonb", "Json"),
            ("_text", "string[]"),
            ("_jsonb", "Json[]"),
            ("void", "undefined"),
            ("geometry", "unknown"),
        ];
        for (pg, ts) in cases {
            assert_eq!(ts_type(&TypeRef::builtin(pg), &extra, &schemas), ts, "{pg}");
        }
        let mut with_enum = Extra::default();
        with_enum.enums.insert(
            ("public".into(), "mood".into()),
            vec!["happy".into(), "sad".into()],
        );
        let mood = TypeRef {
            schema: "public".into(),
            name: "mood".into(),
        };
        assert_eq!(
            ts_type(&mood, &with_enum, &schemas),
            "Database[\"public\"][\"Enums\"][\"mood\"]"
        );
        let moods = TypeRef {
            schema: "public".into(),
            name: "_mood".into(),
        };
        assert_eq!(
            ts_type(&moods, &with_enum, &schemas),
            "Database[\"public\"][\"Enums\"][\"mood\"][]"
        );
    }
}
