//! Security tests: the operator console's sign-in (issue 42, item 4).
//! Ten wrong passwords from anywhere locked an operator out for 15
//! minutes, renewably. Failures are now counted per account *and* address
//! (the attacker's address is refused), per address (a spraying address is
//! refused), and per account only to slow its sign-ins down.

use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::json;

use crate::helpers::{TestApp, spawn_app};
use crate::marketplace_support::owner_pool;
use crate::security::support::client_at;

const OPERATOR: &str = "ops@example.test";
const PASSWORD: &str = "a long operator password";

async fn attempt(app: &TestApp, client: &Client, password: &str) -> StatusCode {
    client
        .post(format!("{}/_/console/api/session", app.url))
        .header("x-plinth-console", "1")
        .json(&json!({ "email": OPERATOR, "password": password }))
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn review2_item_04_nobody_can_lock_an_operator_out() {
    let app = spawn_app().await;
    plinth_console::set_operator(owner_pool(&app), OPERATOR, PASSWORD)
        .await
        .unwrap();
    // Three addresses, ten wrong passwords each (ten from anywhere locked
    // the operator out before).
    for address in 1..=3u8 {
        let attacker = client_at(0, 4, address);
        for _ in 0..10 {
            assert_eq!(
                attempt(&app, &attacker, "a wrong password").await,
                StatusCode::UNAUTHORIZED
            );
        }
        // That address is refused for this account now, right password or not.
        assert_eq!(
            attempt(&app, &attacker, PASSWORD).await,
            StatusCode::TOO_MANY_REQUESTS
        );
    }
    // The operator, at their own address, still signs in: slowed, not refused.
    let started = Instant::now();
    let status = attempt(&app, &client_at(0, 5, 1), PASSWORD).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "an account under attack is slowed down"
    );
}
