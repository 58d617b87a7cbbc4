//! Stage 2: what the database holds, read from `pg_catalog` for the exposed
//! schemas: tables, views, columns and their types, primary keys, foreign
//! keys (also carried through simple views), and functions.
//!
//! Invariant: a cache is built whole, off the request path, and then
//! swapped in (see `RestState`); requests only ever read a complete
//! snapshot. Loading is the only code here that touches the database.

use std::collections::{BTreeMap, HashMap, HashSet};

use sqlx::{PgPool, Row};

/// `schema.name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QualifiedName {
    pub schema: String,
    pub name: String,
}

impl QualifiedName {
    pub fn new(schema: &str, name: &str) -> Self {
        Self {
            schema: schema.to_owned(),
            name: name.to_owned(),
        }
    }
}

/// A type as the catalog names it (`pg_catalog._int4`), so that casts never
/// depend on the search path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeRef {
    pub schema: String,
    pub name: String,
}

impl TypeRef {
    pub fn builtin(name: &str) -> Self {
        Self {
            schema: "pg_catalog".into(),
            name: name.into(),
        }
    }

    pub fn is_json(&self) -> bool {
        self.schema == "pg_catalog" && (self.name == "json" || self.name == "jsonb")
    }

    pub fn is_array(&self) -> bool {
        self.name.starts_with('_')
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Table,
    View,
    MaterializedView,
    Foreign,
    Partitioned,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub ty: TypeRef,
    /// `format_type()`: what people read (`character varying(20)`).
    pub pretty_type: String,
    pub nullable: bool,
    /// The default expression as the catalog prints it (trusted SQL).
    pub default: Option<String>,
    pub generated: bool,
    pub description: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Table {
    pub name: QualifiedName,
    pub kind: TableKind,
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
    pub description: Option<String>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// A foreign key from `table(columns)` to `ref_table(ref_columns)`; also the
/// same key as seen through views that carry its columns unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    pub name: String,
    pub table: QualifiedName,
    pub columns: Vec<String>,
    pub ref_table: QualifiedName,
    pub ref_columns: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Volatility {
    Immutable,
    Stable,
    Volatile,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub ty: TypeRef,
    /// `type::regtype::text` (`integer`, `character varying`): how
    /// PostgREST names the type in its messages (PGRST203).
    pub type_text: String,
    pub has_default: bool,
    pub variadic: bool,
}

/// What a function returns.
#[derive(Debug, Clone)]
pub enum Returns {
    Void,
    /// A single value of a base type.
    Scalar(TypeRef),
    /// Rows with known columns (a table's row type, `RETURNS TABLE`, OUT params).
    Rows {
        columns: Vec<(String, TypeRef)>,
        /// The relation whose row type it is, when it is one (embeds work from it).
        relation: Option<QualifiedName>,
    },
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: QualifiedName,
    pub params: Vec<Param>,
    pub returns: Returns,
    pub returns_set: bool,
    /// Declared `ROWS 1`: a set-returning function that yields at most one
    /// row (a to-one computed relationship, as PostgREST reads it).
    pub single_row: bool,
    pub volatility: Volatility,
    pub description: Option<String>,
    /// The one input parameter is a table's row type (computed column or
    /// computed relationship of that table).
    pub row_arg_of: Option<QualifiedName>,
}

impl Function {
    pub fn is_scalar(&self) -> bool {
        matches!(self.returns, Returns::Scalar(_))
    }

    /// As an embed (computed relationship): at most one row per parent.
    pub fn is_to_one(&self) -> bool {
        !self.returns_set || self.single_row
    }
}

/// A snapshot of the exposed schemas.
#[derive(Debug, Clone, Default)]
pub struct SchemaCache {
    pub schemas: Vec<String>,
    pub tables: HashMap<QualifiedName, Table>,
    pub foreign_keys: Vec<ForeignKey>,
    pub functions: HashMap<QualifiedName, Vec<Function>>,
    /// The server's time zone names (`pg_timezone_names`): `Prefer:
    /// timezone=` is applied only with one of them.
    pub timezones: HashSet<String>,
}

impl SchemaCache {
    pub fn table(&self, schema: &str, name: &str) -> Option<&Table> {
        self.tables.get(&QualifiedName::new(schema, name))
    }

    pub fn functions(&self, schema: &str, name: &str) -> &[Function] {
        self.functions
            .get(&QualifiedName::new(schema, name))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Functions taking one row of `table`: computed columns (scalar result)
    /// and computed relationships (row results).
    pub fn computed(&self, table: &QualifiedName, name: &str) -> Option<&Function> {
        self.functions(&table.schema, name)
            .iter()
            .find(|f| f.row_arg_of.as_ref() == Some(table))
    }

    /// Reads the catalog for `schemas`.
    pub async fn load(pool: &PgPool, schemas: &[String]) -> Result<Self, sqlx::Error> {
        let mut tables: BTreeMap<QualifiedName, Table> = BTreeMap::new();
        for row in sqlx::query(COLUMNS_SQL)
            .bind(schemas)
            .fetch_all(pool)
            .await?
        {
            let name = QualifiedName::new(row.try_get("schema")?, row.try_get("name")?);
            let kind = match row.try_get::<String, _>("kind")?.as_str() {
                "v" => TableKind::View,
                "m" => TableKind::MaterializedView,
                "f" => TableKind::Foreign,
                "p" => TableKind::Partitioned,
                _ => TableKind::Table,
            };
            let table = tables.entry(name.clone()).or_insert_with(|| Table {
                name,
                kind,
                columns: Vec::new(),
                primary_key: Vec::new(),
                description: None,
            });
            table.description = row.try_get("table_comment")?;
            if let Some(column) = row.try_get::<Option<String>, _>("column")? {
                table.columns.push(Column {
                    name: column,
                    ty: TypeRef {
                        schema: row.try_get("type_schema")?,
                        name: row.try_get("type_name")?,
                    },
                    pretty_type: row.try_get("pretty_type")?,
                    nullable: row.try_get("nullable")?,
                    default: row.try_get("default_expr")?,
                    generated: row.try_get("generated")?,
                    description: row.try_get("column_comment")?,
                });
            }
        }

        let mut foreign_keys = Vec::new();
        for row in sqlx::query(CONSTRAINTS_SQL)
            .bind(schemas)
            .fetch_all(pool)
            .await?
        {
            let kind: String = row.try_get("kind")?;
            let table = QualifiedName::new(row.try_get("schema")?, row.try_get("table_name")?);
            let columns: Vec<String> = row.try_get("cols")?;
            if kind == "p" {
                if let Some(t) = tables.get_mut(&table) {
                    t.primary_key = columns;
                }
            } else if kind == "f" {
                let ref_table =
                    QualifiedName::new(row.try_get("ref_schema")?, row.try_get("ref_table")?);
                foreign_keys.push(ForeignKey {
                    name: row.try_get("name")?,
                    table,
                    columns,
                    ref_table,
                    ref_columns: row.try_get("ref_cols")?,
                });
            }
        }

        // Views carry keys of the tables they select from when they keep the
        // key columns under the same names.
        let mut view_columns: HashMap<QualifiedName, Vec<(QualifiedName, String)>> = HashMap::new();
        for row in sqlx::query(VIEW_DEPS_SQL)
            .bind(schemas)
            .fetch_all(pool)
            .await?
        {
            let view = QualifiedName::new(row.try_get("view_schema")?, row.try_get("view_name")?);
            let base = QualifiedName::new(row.try_get("base_schema")?, row.try_get("base_name")?);
            view_columns
                .entry(view)
                .or_default()
                .push((base, row.try_get("column")?));
        }
        let carries = |view: &QualifiedName, base: &QualifiedName, cols: &[String]| -> bool {
            let Some(deps) = view_columns.get(view) else {
                return false;
            };
            let Some(v) = tables.get(view) else {
                return false;
            };
            cols.iter()
                .all(|c| v.column(c).is_some() && deps.iter().any(|(b, col)| b == base && col == c))
        };
        let mut derived = Vec::new();
        for fk in &foreign_keys {
            let mut sources = vec![fk.table.clone()];
            let mut targets = vec![fk.ref_table.clone()];
            for view in view_columns.keys() {
                if carries(view, &fk.table, &fk.columns) {
                    sources.push(view.clone());
                }
                if carries(view, &fk.ref_table, &fk.ref_columns) {
                    targets.push(view.clone());
                }
            }
            for s in &sources {
                for t in &targets {
                    if *s == fk.table && *t == fk.ref_table {
                        continue;
                    }
                    derived.push(ForeignKey {
                        name: fk.name.clone(),
                        table: s.clone(),
                        columns: fk.columns.clone(),
                        ref_table: t.clone(),
                        ref_columns: fk.ref_columns.clone(),
                    });
                }
            }
        }
        // Views also inherit the primary key of their table.
        let mut view_pks = Vec::new();
        for (view, deps) in &view_columns {
            let bases: HashSet<&QualifiedName> = deps.iter().map(|(b, _)| b).collect();
            for base in bases {
                if let Some(t) = tables.get(base)
                    && !t.primary_key.is_empty()
                    && carries(view, base, &t.primary_key)
                {
                    view_pks.push((view.clone(), t.primary_key.clone()));
                }
            }
        }
        for (view, pk) in view_pks {
            if let Some(v) = tables.get_mut(&view)
                && v.primary_key.is_empty()
            {
                v.primary_key = pk;
            }
        }
        foreign_keys.extend(derived);

        let mut functions: HashMap<QualifiedName, Vec<Function>> = HashMap::new();
        let table_types: HashMap<(String, String), QualifiedName> = tables
            .keys()
            .map(|q| ((q.schema.clone(), q.name.clone()), q.clone()))
            .collect();
        for row in sqlx::query(FUNCTIONS_SQL)
            .bind(schemas)
            .fetch_all(pool)
            .await?
        {
            let name = QualifiedName::new(row.try_get("schema")?, row.try_get("name")?);
            let arg_names: Vec<String> = row.try_get("arg_names")?;
            let arg_modes: Vec<String> = row.try_get("arg_modes")?;
            let type_schemas: Vec<String> = row.try_get("arg_type_schemas")?;
            let type_names: Vec<String> = row.try_get("arg_type_names")?;
            let n_defaults: i16 = row.try_get("n_defaults")?;
            let type_texts: Vec<String> = row.try_get("arg_regtypes")?;
            let mut params = Vec::new();
            let mut out_columns = Vec::new();
            for (i, (ts, tn)) in type_schemas.iter().zip(&type_names).enumerate() {
                let mode = arg_modes.get(i).map(String::as_str).unwrap_or("i");
                let pname = arg_names.get(i).cloned().unwrap_or_default();
                let ty = TypeRef {
                    schema: ts.clone(),
                    name: tn.clone(),
                };
                if matches!(mode, "i" | "b" | "v") {
                    params.push(Param {
                        name: pname.clone(),
                        ty: ty.clone(),
                        type_text: type_texts.get(i).cloned().unwrap_or_default(),
                        has_default: false,
                        variadic: mode == "v",
                    });
                }
                if matches!(mode, "o" | "b" | "t") {
                    out_columns.push((pname, ty));
                }
            }
            let n = params.len();
            for p in params
                .iter_mut()
                .skip(n.saturating_sub(n_defaults.max(0) as usize))
            {
                p.has_default = true;
            }
            let ret_schema: String = row.try_get("ret_schema")?;
            let ret_name: String = row.try_get("ret_name")?;
            let ret_rel: Option<String> = row.try_get("ret_relname")?;
            let ret_rel_schema: Option<String> = row.try_get("ret_relschema")?;
            let ret_col_names: Vec<String> = row.try_get("ret_col_names")?;
            let ret_col_schemas: Vec<String> = row.try_get("ret_col_schemas")?;
            let ret_col_types: Vec<String> = row.try_get("ret_col_types")?;
            let returns = if !out_columns.is_empty() {
                if out_columns.len() == 1
                    && arg_modes.iter().any(|m| m == "o" || m == "b")
                    && !row.try_get::<bool, _>("returns_set")?
                    && ret_name != "record"
                {
                    Returns::Scalar(out_columns.remove(0).1)
                } else {
                    Returns::Rows {
                        columns: out_columns,
                        relation: None,
                    }
                }
            } else if ret_schema == "pg_catalog" && ret_name == "void" {
                Returns::Void
            } else if let (Some(rel), Some(rel_schema)) = (ret_rel, ret_rel_schema) {
                let columns = ret_col_names
                    .into_iter()
                    .zip(ret_col_schemas.into_iter().zip(ret_col_types))
                    .map(|(n, (s, t))| (n, TypeRef { schema: s, name: t }))
                    .collect();
                Returns::Rows {
                    columns,
                    relation: table_types.get(&(rel_schema, rel)).cloned(),
                }
            } else if ret_name == "record" {
                Returns::Rows {
                    columns: Vec::new(),
                    relation: None,
                }
            } else {
                Returns::Scalar(TypeRef {
                    schema: ret_schema,
                    name: ret_name,
                })
            };
            let volatility = match row.try_get::<String, _>("volatility")?.as_str() {
                "i" => Volatility::Immutable,
                "s" => Volatility::Stable,
                _ => Volatility::Volatile,
            };
            let row_arg_of = match params.as_slice() {
                [p] => table_types
                    .get(&(p.ty.schema.clone(), p.ty.name.clone()))
                    .cloned(),
                _ => None,
            };
            functions.entry(name.clone()).or_default().push(Function {
                name,
                params,
                returns,
                returns_set: row.try_get("returns_set")?,
                single_row: row.try_get::<bool, _>("returns_set")?
                    && row.try_get::<f32, _>("est_rows")? == 1.0,
                volatility,
                description: row.try_get("description")?,
                row_arg_of,
            });
        }

        let timezones = sqlx::query_scalar::<_, String>(TIMEZONES_SQL)
            .fetch_all(pool)
            .await?
            .into_iter()
            .collect();

        Ok(Self {
            schemas: schemas.to_vec(),
            tables: tables.into_iter().collect(),
            foreign_keys,
            functions,
            timezones,
        })
    }
}

const TIMEZONES_SQL: &str = "select name::text from pg_catalog.pg_timezone_names";

const COLUMNS_SQL: &str = "
select n.nspname::text as schema, c.relname::text as name, c.relkind::text as kind,
       a.attname::text as column,
       tn.nspname::text as type_schema, t.typname::text as type_name,
       format_type(a.atttypid, a.atttypmod) as pretty_type,
       coalesce(not a.attnotnull, true) as nullable,
       pg_get_expr(d.adbin, d.adrelid) as default_expr,
       coalesce(a.attgenerated <> '', false) as generated,
       obj_description(c.oid, 'pg_class') as table_comment,
       col_description(c.oid, a.attnum) as column_comment
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
left join pg_type t on t.oid = a.atttypid
left join pg_namespace tn on tn.oid = t.typnamespace
left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
where n.nspname = any($1) and c.relkind in ('r', 'v', 'm', 'f', 'p')
order by n.nspname, c.relname, a.attnum";

const CONSTRAINTS_SQL: &str = "
select con.conname::text as name, con.contype::text as kind,
       n.nspname::text as schema, c.relname::text as table_name,
       array(select a.attname::text from unnest(con.conkey) with ordinality k(attnum, ord)
             join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
             order by k.ord) as cols,
       coalesce(fn.nspname::text, '') as ref_schema, coalesce(fc.relname::text, '') as ref_table,
       array(select a.attname::text from unnest(coalesce(con.confkey, '{}')) with ordinality k(attnum, ord)
             join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum
             order by k.ord) as ref_cols
from pg_constraint con
join pg_class c on c.oid = con.conrelid
join pg_namespace n on n.oid = c.relnamespace
left join pg_class fc on fc.oid = con.confrelid
left join pg_namespace fn on fn.oid = fc.relnamespace
where con.contype in ('p', 'f') and n.nspname = any($1) and con.conparentid = 0
order by n.nspname, c.relname, con.conname";

const VIEW_DEPS_SQL: &str = "
select distinct vn.nspname::text as view_schema, v.relname::text as view_name,
       tn.nspname::text as base_schema, t.relname::text as base_name, a.attname::text as column
from pg_rewrite r
join pg_class v on v.oid = r.ev_class and v.relkind in ('v', 'm')
join pg_namespace vn on vn.oid = v.relnamespace
join pg_depend d on d.objid = r.oid and d.classid = 'pg_rewrite'::regclass
     and d.refclassid = 'pg_class'::regclass and d.refobjsubid > 0
join pg_class t on t.oid = d.refobjid and t.oid <> v.oid
join pg_namespace tn on tn.oid = t.relnamespace
join pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
where vn.nspname = any($1)";

const FUNCTIONS_SQL: &str = "
select n.nspname::text as schema, p.proname::text as name,
       coalesce(p.proargnames, '{}')::text[] as arg_names,
       coalesce(p.proargmodes::text[], '{}') as arg_modes,
       array(select tn.nspname::text from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(t, o)
             join pg_type ty on ty.oid = u.t join pg_namespace tn on tn.oid = ty.typnamespace order by u.o) as arg_type_schemas,
       array(select ty.typname::text from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(t, o)
             join pg_type ty on ty.oid = u.t order by u.o) as arg_type_names,
       array(select u.t::regtype::text from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(t, o)
             order by u.o) as arg_regtypes,
       p.pronargdefaults as n_defaults,
       p.proretset as returns_set, p.prorows as est_rows,
       rtn.nspname::text as ret_schema, rt.typname::text as ret_name,
       rc.relname::text as ret_relname, rcn.nspname::text as ret_relschema,
       array(select a.attname::text from pg_attribute a where a.attrelid = rt.typrelid and a.attnum > 0 and not a.attisdropped order by a.attnum) as ret_col_names,
       array(select atn.nspname::text from pg_attribute a join pg_type at on at.oid = a.atttypid join pg_namespace atn on atn.oid = at.typnamespace
             where a.attrelid = rt.typrelid and a.attnum > 0 and not a.attisdropped order by a.attnum) as ret_col_schemas,
       array(select at.typname::text from pg_attribute a join pg_type at on at.oid = a.atttypid
             where a.attrelid = rt.typrelid and a.attnum > 0 and not a.attisdropped order by a.attnum) as ret_col_types,
       p.provolatile::text as volatility,
       obj_description(p.oid, 'pg_proc') as description
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type rt on rt.oid = p.prorettype
join pg_namespace rtn on rtn.oid = rt.typnamespace
left join pg_class rc on rc.oid = rt.typrelid and rt.typrelid <> 0
left join pg_namespace rcn on rcn.oid = rc.relnamespace
where n.nspname = any($1) and p.prokind = 'f'
  and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
order by n.nspname, p.proname, p.oid";
