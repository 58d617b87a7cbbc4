//! The baseline of a REST query: the statement the gateway renders for it
//! (its own parse, plan and render stages over the database's schema), as a
//! pgbench script in PostgREST's transaction shape. The binds are written as
//! typed literals, since pgbench cannot bind text.

use anyhow::{Context, anyhow};
use plinth_rest::request::RawRequest;
use plinth_rest::schema_cache::SchemaCache;
use plinth_rest::sql::Bind;
use plinth_rest::{RestConfig, plan, request, sql};

/// `'text'` with quotes doubled.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn bind_literal(bind: &Bind) -> String {
    match bind {
        Bind::Text(t) => format!("{}::text", literal(t)),
        Bind::Int(i) => format!("{i}::int8"),
        Bind::TextArray(items) => {
            let items = items
                .iter()
                .map(|i| format!("\"{}\"", i.replace('\\', "\\\\").replace('"', "\\\"")))
                .collect::<Vec<_>>()
                .join(",");
            format!("{}::text[]", literal(&format!("{{{items}}}")))
        }
    }
}

/// `text` with each `$n` replaced by the literal of bind `n`.
fn inline(text: &str, binds: &[Bind]) -> anyhow::Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - at - 1);
        if digits == 0 {
            out.push('$');
            rest = &rest[at + 1..];
            continue;
        }
        let n: usize = rest[at + 1..at + 1 + digits].parse()?;
        let bind = binds
            .get(n - 1)
            .ok_or_else(|| anyhow!("the statement names ${n} of {} binds", binds.len()))?;
        out.push_str(&bind_literal(bind));
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    Ok(out)
}

pub async fn pgbench_script(db_url: &str, path: &str) -> anyhow::Result<String> {
    let pool = sqlx::PgPool::connect(db_url).await.context("connecting")?;
    let config = RestConfig::default();
    let cache = SchemaCache::load(&pool, &config.db_schemas).await?;
    let (path_only, query) = match path.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path, None),
    };
    let raw = RawRequest {
        method: "GET",
        path: path_only,
        query,
        accept: None,
        accept_profile: None,
        content_profile: None,
        content_type: None,
        range: None,
        prefer: &[],
        body: &[],
    };
    let req = request::parse(&raw).map_err(|e| anyhow!("{e:?}"))?;
    let plan = plan::plan(&req, &cache, &config).map_err(|e| anyhow!("{e:?}"))?;
    let statement = sql::render(&plan, None).context("a read renders a statement")?;
    let search_path = std::iter::once(&plan.schema)
        .chain(
            config
                .extra_search_path
                .iter()
                .filter(|s| **s != plan.schema),
        )
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(format!(
        "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY;\n\
         SELECT set_config('search_path', {}, true), set_config('role', 'anon', true), \
         set_config('request.jwt.claims', '{{\"role\":\"anon\"}}', true), \
         set_config('request.method', 'GET', true), set_config('request.path', {}, true), \
         set_config('request.headers', '{{}}', true);\n\
         {};\n\
         COMMIT;\n",
        literal(&search_path),
        literal(path_only),
        inline(&statement.sql.text, &statement.sql.binds)?.replace('\n', " "),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binds_become_typed_literals_in_place() {
        let binds: Vec<Bind> = (1..=10)
            .map(|i| Bind::Text(format!("v{i}")))
            .chain([
                Bind::Int(7),
                Bind::TextArray(vec!["a\"b".into(), "it's".into()]),
            ])
            .collect();
        let sql = "select $1, $10, $11, $12, '$' || $2";
        assert_eq!(
            inline(sql, &binds).unwrap(),
            "select 'v1'::text, 'v10'::text, 7::int8, '{\"a\\\"b\",\"it''s\"}'::text[], '$' || 'v2'::text"
        );
        assert!(inline("select $3", &binds[..2]).is_err());
    }
}
