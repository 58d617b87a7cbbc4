//! The node's function host (the project's own functions, and the
//! marketplace's handlers registered with it) and `plinth functions ...`.

use std::path::Path;

use anyhow::{Context, bail};
use plinth_functions::{FunctionsHost, HostConfig, Project, ProjectEnv, secrets};

use crate::config::{FunctionDirArgs, FunctionNewArgs, FunctionsAction, SecretsAction, ServeArgs};
use crate::keys::Keys;
use crate::startup::{Backend, init_logging};

/// A running host and the private folder of its workers' sockets (removed
/// when dropped).
pub struct Host {
    pub host: FunctionsHost,
    _runtime: tempfile::TempDir,
}

/// The host of a node listening at `url`.
pub fn host(
    args: &ServeArgs,
    url: &str,
    public_url: &str,
    keys: &Keys,
    backend: &Backend,
) -> anyhow::Result<Host> {
    let settings = &args.function_host;
    let runtime = tempfile::Builder::new()
        .prefix("plinth-functions-")
        .tempdir()
        .context("cannot make the functions' runtime folder")?;
    let dir = crate::startup::absolute(&settings.functions_dir)?;
    let config = HostConfig {
        dir,
        deno: plinth_functions::find_deno(settings.deno_bin.as_deref()),
        runtime_dir: runtime.path().to_owned(),
        env: ProjectEnv {
            supabase_url: url.to_owned(),
            public_url: public_url.to_owned(),
            anon_key: keys.anon_key.clone(),
            service_role_key: keys.service_role_key.clone(),
            db_url: database_url(args, keys, backend),
        },
        limits: settings.limits()?,
        watch: settings.functions_watch,
    };
    let host = FunctionsHost::new(config, keys.secret.clone(), backend.db.owner.clone())?;
    let shadowed: Vec<_> = host
        .names()
        .into_iter()
        .filter(|name| plinth_marketplace::FUNCTION_NAMES.contains(&name.as_str()))
        .collect();
    if !shadowed.is_empty() {
        tracing::warn!(functions = ?shadowed, "the project's own functions take the place of built-in ones of the same name");
    }
    Ok(Host {
        host,
        _runtime: runtime,
    })
}

/// `SUPABASE_DB_URL`: `PLINTH_FUNCTIONS_DB_URL`, else the `project_admin`
/// role (no superuser: see `plinth_db::project_admin`) with its password
/// derived from the JWT secret, on the database Plinth uses, as the platform
/// hands functions the URL of its `postgres` role (no superuser there
/// either). That is `DATABASE_URL` with its user and password replaced, or
/// the embedded cluster over its loopback TCP port: a worker may use the
/// network but may not enter the cluster's socket folder.
fn database_url(args: &ServeArgs, keys: &Keys, backend: &Backend) -> String {
    if let Some(url) = &args.functions_db_url {
        return url.expose().to_owned();
    }
    let password = plinth_db::project_admin::password(&keys.secret);
    match (&args.db.database_url, &backend.cluster) {
        (Some(url), _) => with_login(url.expose(), plinth_db::project_admin::ROLE, &password)
            .unwrap_or_else(|| {
                tracing::warn!(
                    "DATABASE_URL is no URL whose login can be replaced: functions get no \
                     SUPABASE_DB_URL (set PLINTH_FUNCTIONS_DB_URL)"
                );
                String::new()
            }),
        (None, Some(cluster)) => tcp_url(cluster.port(), &password),
        (None, None) => String::new(),
    }
}

/// A user or password percent-encoded whole but for the unreserved
/// characters: `url`'s user-info setters would leave a `%` as it is.
fn encoded(text: &str) -> String {
    use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
    const USERINFO: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    utf8_percent_encode(text, USERINFO).to_string()
}

/// `project_admin`'s URL over loopback TCP.
fn tcp_url(port: u16, password: &str) -> String {
    format!(
        "postgresql://{}:{}@127.0.0.1:{port}/postgres",
        plinth_db::project_admin::ROLE,
        encoded(password)
    )
}

/// `url` logging in as `user` with `password` instead (also when it names
/// its login in the query, as `?user=...&password=...`, or has no host but
/// a socket folder there). `None` when it is no URL.
fn with_login(url: &str, user: &str, password: &str) -> Option<String> {
    let mut url = url::Url::parse(url).ok()?;
    let mut query: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(name, _)| name != "user" && name != "password")
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect();
    url.set_query(None);
    if url.has_host() && !url.host_str().unwrap_or_default().is_empty() {
        url.set_username(&encoded(user)).ok()?;
        url.set_password(Some(&encoded(password))).ok()?;
    } else {
        query.push(("user".to_owned(), user.to_owned()));
        query.push(("password".to_owned(), password.to_owned()));
    }
    if !query.is_empty() {
        url.query_pairs_mut().extend_pairs(query);
    }
    Some(url.to_string())
}

/// `plinth functions ...`.
pub async fn run(action: FunctionsAction) -> anyhow::Result<()> {
    match action {
        FunctionsAction::New(args) => new(&args),
        FunctionsAction::List(args) => {
            list(&args);
            Ok(())
        }
        FunctionsAction::Serve(mut args) => {
            args.function_host.functions_watch = true;
            crate::startup::serve(*args).await
        }
        FunctionsAction::Secrets { action } => secrets_command(action).await,
    }
}

/// `__NAME__` is the function's name.
const TEMPLATE: &str = r#"// The `__NAME__` function: /functions/v1/__NAME__.
// It reads the caller's JWT and queries a table as the caller, so row-level
// security applies.
import { createClient } from 'npm:@supabase/supabase-js@2'

const cors = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
}

Deno.serve(async (req: Request) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: cors })

  const supabase = createClient(Deno.env.get('SUPABASE_URL')!, Deno.env.get('SUPABASE_ANON_KEY')!, {
    global: { headers: { Authorization: req.headers.get('Authorization') ?? '' } },
  })
  const { data: { user } } = await supabase.auth.getUser()
  const { name } = await req.json().catch(() => ({ name: 'world' }))

  return Response.json(
    { message: `Hello ${name}!`, user: user?.email ?? null },
    { headers: cors },
  )
})
"#;

fn new(args: &FunctionNewArgs) -> anyhow::Result<()> {
    if !plinth_functions::valid_name(&args.name) {
        bail!(
            "{:?} is not a function name: a letter, then letters, digits, - and _ (at most 64)",
            args.name
        );
    }
    let folder = args.dir.functions_dir.join(&args.name);
    if folder.exists() {
        bail!("{} exists already", folder.display());
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot make {}", folder.display()))?;
    let index = folder.join("index.ts");
    std::fs::write(&index, TEMPLATE.replace("__NAME__", &args.name))
        .with_context(|| format!("cannot write {}", index.display()))?;
    println!(
        "Created {}; it answers at /functions/v1/{} (`plinth functions serve` reloads it as you edit).",
        index.display(),
        args.name
    );
    Ok(())
}

fn list(args: &FunctionDirArgs) {
    let project = Project::new(&args.functions_dir);
    let names = project.names();
    if names.is_empty() {
        println!(
            "No functions in {} (`plinth functions new <name>` makes one).",
            args.functions_dir.display()
        );
    }
    for name in &names {
        match project.spec(name) {
            Ok(Some(spec)) => println!(
                "{name}\tverify_jwt={}\t{}",
                spec.verify_jwt,
                relative(&spec.entrypoint, &args.functions_dir)
            ),
            Ok(None) => {}
            Err(e) => println!("{name}\terror: {e}"),
        }
    }
    let builtin: Vec<_> = plinth_marketplace::FUNCTION_NAMES
        .iter()
        .filter(|name| !names.iter().any(|n| n == *name))
        .collect();
    println!(
        "Built in: {}",
        builtin
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

async fn secrets_command(action: SecretsAction) -> anyhow::Result<()> {
    let db = match &action {
        SecretsAction::Set(args) => &args.db,
        SecretsAction::List(args) => &args.db,
        SecretsAction::Unset(args) => &args.db,
    };
    init_logging(&db.log);
    let keys = Keys::load_or_generate(&db.keys, &db.data_dir)?;
    let pairs = match &action {
        SecretsAction::Set(args) => {
            let pairs = read_pairs(&args.pairs, args.env_file.as_deref())?;
            if pairs.is_empty() {
                bail!("nothing to set: give NAME=value pairs or --env-file");
            }
            pairs
        }
        _ => Vec::new(),
    };
    let backend = Backend::open(db).await?;
    let result = async {
        backend.migrate(db).await?;
        let owner = &backend.db.owner;
        match &action {
            SecretsAction::Set(_) => {
                secrets::set(owner, &keys.secret, &pairs).await?;
                let names: Vec<_> = pairs.iter().map(|(k, _)| k.as_str()).collect();
                println!(
                    "Set {}; running functions restart with them.",
                    names.join(", ")
                );
            }
            SecretsAction::List(_) => {
                let listed = secrets::list(owner).await?;
                if listed.is_empty() {
                    println!("No secrets.");
                }
                for secret in listed {
                    println!(
                        "{}\tsha256:{}\t{}",
                        secret.name, secret.digest, secret.updated_at
                    );
                }
            }
            SecretsAction::Unset(args) => {
                let removed = secrets::unset(owner, &args.names).await?;
                for name in &args.names {
                    if removed.contains(name) {
                        println!("Removed {name}");
                    } else {
                        println!("{name} was not set");
                    }
                }
            }
        }
        anyhow::Ok(())
    }
    .await;
    let closed = backend.close().await;
    result?;
    closed
}

/// `NAME=value` pairs from the arguments and the lines of an env file
/// (blank lines and `#` comments skipped, `export ` and quotes allowed).
fn read_pairs(args: &[String], env_file: Option<&Path>) -> anyhow::Result<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    if let Some(file) = env_file {
        for item in dotenvy::from_path_iter(file)
            .with_context(|| format!("cannot read {}", file.display()))?
        {
            pairs.push(item.with_context(|| format!("{} is not an env file", file.display()))?);
        }
    }
    for arg in args {
        let Some((name, value)) = arg.split_once('=') else {
            bail!("{arg:?} is not NAME=value");
        };
        pairs.push((name.trim().to_owned(), value.to_owned()));
    }
    for (name, _) in &pairs {
        secrets::check_name(name)?;
    }
    Ok(pairs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn pairs_come_from_arguments_and_env_files() {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), "# keys\nexport A_KEY=\"one two\"\n\nB=2\n").unwrap();
        let pairs = read_pairs(&["C=x=y".into()], Some(file.path())).unwrap();
        assert_eq!(
            pairs,
            vec![
                ("A_KEY".to_owned(), "one two".to_owned()),
                ("B".to_owned(), "2".to_owned()),
                ("C".to_owned(), "x=y".to_owned()),
            ]
        );
        assert!(read_pairs(&["NOVALUE".into()], None).is_err());
        assert!(read_pairs(&["SUPABASE_URL=x".into()], None).is_err());
        assert!(read_pairs(&["BAD-NAME=x".into()], None).is_err());
    }

    #[test]
    fn the_embedded_database_url_carries_the_password_encoded() {
        let url = tcp_url(5433, "p@ss/w:rd%");
        let parsed = url::Url::parse(&url).unwrap();
        assert_eq!(parsed.host_str(), Some("127.0.0.1"));
        assert_eq!(parsed.port(), Some(5433));
        assert_eq!(parsed.username(), "project_admin");
        assert_eq!(parsed.password(), Some("p%40ss%2Fw%3Ard%25"));
        assert_eq!(parsed.path(), "/postgres");
    }

    #[test]
    fn an_external_database_url_gets_project_admins_login() {
        let url = with_login(
            "postgres://plinth:owner%20secret@db.internal:6432/app?sslmode=require&user=x&password=y",
            "project_admin",
            "p@ss%",
        )
        .unwrap();
        let parsed = url::Url::parse(&url).unwrap();
        assert_eq!(parsed.host_str(), Some("db.internal"));
        assert_eq!(parsed.port(), Some(6432));
        assert_eq!(parsed.path(), "/app");
        assert_eq!(parsed.username(), "project_admin");
        assert_eq!(parsed.password(), Some("p%40ss%25"));
        assert_eq!(parsed.query(), Some("sslmode=require"));
        let options: sqlx::postgres::PgConnectOptions = url.parse().unwrap();
        assert_eq!(options.get_username(), "project_admin");
        assert_eq!(options.get_database(), Some("app"));

        // A socket folder in the query: the login goes there too.
        let url = with_login(
            "postgresql:///app?host=/var/run/postgresql&user=plinth",
            "project_admin",
            "pw",
        )
        .unwrap();
        let options: sqlx::postgres::PgConnectOptions = url.parse().unwrap();
        assert_eq!(options.get_username(), "project_admin", "{url}");
        assert!(!url.contains("plinth"), "{url}");
        assert!(with_login("not a url", "project_admin", "pw").is_none());
    }
}
