//! PLINTH_NEWSLETTER_WEBHOOK_URL through the real binary: handed to the app
//! by `/_/app-config.json`, its origin added to the pages' CSP `connect-src`
//! only when set, and a bad value refused at start-up.

use std::time::Duration;

use serde_json::Value;

use crate::helpers::{Running, free_port, output, plinth};

/// A node started by [`serve`], and what must live as long as it.
struct Node {
    running: Running,
    url: String,
    rt: tokio::runtime::Runtime,
    _db: plinth_db::testing::TestDb,
    _dir: tempfile::TempDir,
}

/// `plinth serve` over a fresh, empty database with a one-page app, with
/// PLINTH_NEWSLETTER_WEBHOOK_URL as given.
fn serve(webhook: Option<&str>) -> Node {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("app")).unwrap();
    std::fs::write(
        dir.path().join("app/index.html"),
        "<!doctype html><div id=root></div>",
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let test_db = rt.block_on(plinth_db::testing::TestDb::new(&[]));
    let database_url = format!(
        "{}/{}",
        plinth_db::testing::server_url().rsplit_once('/').unwrap().0,
        test_db.name
    );
    let port = free_port();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &port.to_string(), "--app-dir", "app"])
        .args(["--migrations", "none", "--policies", "none"])
        .env("DATABASE_URL", &database_url)
        .env_remove("PLINTH_NEWSLETTER_WEBHOOK_URL");
    if let Some(webhook) = webhook {
        cmd.env("PLINTH_NEWSLETTER_WEBHOOK_URL", webhook);
    }
    let running = Running::start(cmd);
    running
        .wait_for("Plinth is ready", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("never ready: {seen:#?}"));
    Node {
        running,
        url: format!("http://127.0.0.1:{port}"),
        rt,
        _db: test_db,
        _dir: dir,
    }
}

fn connect_src(csp: &str) -> String {
    csp.split(';')
        .map(str::trim)
        .find(|d| d.starts_with("connect-src "))
        .unwrap_or_else(|| panic!("no connect-src in {csp}"))
        .to_owned()
}

async fn config_and_csp(url: &str) -> (Value, String) {
    let config: Value = reqwest::get(format!("{url}/_/app-config.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let page = reqwest::get(format!("{url}/templates/some-id"))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    (config, csp)
}

#[test]
fn the_webhook_reaches_the_app_and_its_origin_alone_joins_connect_src() {
    let node = serve(Some("https://hook.eu1.example.com/abc123?team=news"));
    let (config, csp) = node.rt.block_on(config_and_csp(&node.url));
    assert_eq!(
        config["newsletterWebhookUrl"],
        "https://hook.eu1.example.com/abc123?team=news"
    );
    assert_eq!(
        connect_src(&csp),
        "connect-src 'self' https://hook.eu1.example.com https://api.stripe.com"
    );
    assert!(!csp.contains("abc123"), "{csp}");
    assert!(node.running.interrupt().success());
}

#[test]
fn without_a_webhook_the_app_gets_none_and_the_csp_stays_as_it_was() {
    let node = serve(None);
    let (config, csp) = node.rt.block_on(config_and_csp(&node.url));
    assert!(config["newsletterWebhookUrl"].is_null(), "{config}");
    assert_eq!(csp, plinth_server::app::APP_CSP);
    assert!(node.running.interrupt().success());
}

#[test]
fn a_webhook_that_is_not_an_absolute_http_url_stops_start_up() {
    for bad in ["hook.example.com/abc", "ftp://hook.example.com/abc"] {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = plinth(dir.path());
        cmd.args(["serve", "--port", &free_port().to_string()])
            .env("DATABASE_URL", plinth_db::testing::server_url())
            .env("PLINTH_NEWSLETTER_WEBHOOK_URL", bad);
        let (ok, _, stderr) = output(cmd);
        assert!(!ok, "started with {bad}");
        let last = stderr.lines().last().unwrap_or_default();
        assert!(
            last.starts_with(
                "error: PLINTH_NEWSLETTER_WEBHOOK_URL must be an absolute http(s) URL"
            ) && last.contains(bad),
            "{bad}: {stderr}"
        );
    }
}
