//! Security tests: the rate limiters themselves (issue 42, item 6). Auth's
//! limiter scanned its whole map under one lock on every limited call once
//! it held 10,000 keys, so many clients slowed every sign-in and refresh.
//! Auth, the marketplace and storage now share one keyed limiter: O(1)
//! work per call (its sweeps are paid for by new keys, which `/metrics`
//! shows), bounded memory, and limits that still bite whatever the number
//! of clients.

use futures_util::StreamExt;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::spawn_app;
use crate::security::support::{auth_call, client_at, metrics, sample};

const CLIENTS: u32 = 12_000;

#[tokio::test]
async fn review2_item_06_many_clients_cost_each_limited_call_no_more_work() {
    let app = spawn_app().await;
    // 12,000 clients, each at an address of its own, each refused a bogus
    // refresh token (a limited call).
    let statuses: Vec<StatusCode> = futures_util::stream::iter(0..CLIENTS)
        .map(|n| {
            let app = &app;
            async move {
                let client = client_at(1 + (n >> 16) as u8, (n >> 8) as u8, n as u8);
                auth_call(
                    app,
                    &client,
                    Method::POST,
                    "/token?grant_type=refresh_token",
                    None,
                    Some(json!({"refresh_token": format!("bogus-{n}")})),
                )
                .await
                .status
            }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    assert!(
        statuses.iter().all(|s| *s == StatusCode::BAD_REQUEST),
        "no client was over its own limit"
    );

    let text = metrics(&app).await;
    let keys = sample(&text, r#"plinth_rate_limiter_keys{limiter="auth refresh"}"#)
        .expect("the limiter's keys are reported");
    let swept = sample(
        &text,
        r#"plinth_rate_limiter_swept_keys{limiter="auth refresh"}"#,
    )
    .expect("the limiter's sweeps are reported");
    println!("{CLIENTS} clients: {keys} keys held, {swept} key states swept");
    assert!(keys <= f64::from(CLIENTS), "{keys}");
    // Each call did O(1) work: all sweeps together looked at a small
    // multiple of the keys added (the old limiter looked at every key on
    // every call past 10,000: about 20 million here).
    assert!(swept <= 3.0 * f64::from(CLIENTS), "{swept} states swept");
    // One limiter for every service.
    for limiter in ["marketplace free orders", "storage renders", "auth sign-in"] {
        let name = format!(r#"plinth_rate_limiter_keys{{limiter="{limiter}"}}"#);
        assert!(sample(&text, &name).is_some(), "{limiter} is reported");
    }

    // And limits still bite: one more client past its own budget (150
    // refreshes per 5 minutes) is refused.
    let busy = client_at(250, 0, 1);
    let mut last = StatusCode::OK;
    for _ in 0..151 {
        last = auth_call(
            &app,
            &busy,
            Method::POST,
            "/token?grant_type=refresh_token",
            None,
            Some(json!({"refresh_token": "bogus"})),
        )
        .await
        .status;
    }
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS);
}
