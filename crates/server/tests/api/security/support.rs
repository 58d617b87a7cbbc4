//! What the security tests share: clients at distinct loopback addresses
//! (the node believes the TCP peer, as in production), calls as
//! supabase-js makes them, seeded users, TOTP codes and `/metrics`.

use std::net::{IpAddr, Ipv4Addr};

use hmac::{Hmac, Mac};
use reqwest::{Client, Method, StatusCode};
use serde_json::Value;
use uuid::Uuid;

use crate::helpers::{TEST_METRICS_TOKEN, TestApp};
use crate::marketplace_support::owner_pool;

/// A client whose requests come from `127.<a>.<b>.<c>`.
pub fn client_at(a: u8, b: u8, c: u8) -> Client {
    Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, a, b, c)))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

pub struct Reply {
    pub status: StatusCode,
    pub body: Value,
}

/// `<method> /auth/v1<path>` as supabase-js sends it: the anon key, and the
/// session's token (else the anon key) as bearer.
pub async fn auth_call(
    app: &TestApp,
    client: &Client,
    method: Method,
    path: &str,
    bearer: Option<&str>,
    body: Option<Value>,
) -> Reply {
    let mut request = client
        .request(method, format!("{}/auth/v1{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header(
            "authorization",
            format!("Bearer {}", bearer.unwrap_or(&app.keys.anon_key)),
        )
        .header("x-supabase-api-version", "2024-01-01");
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    Reply {
        status,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

/// A confirmed e-mail user with `password` (bcrypt, as the platform's seed
/// files store them).
pub async fn seeded_user(app: &TestApp, email: &str, password: &str, cost: i32) -> Uuid {
    sqlx::query_scalar(
        "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, \
           raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
         values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', $1,
                 crypt($2, gen_salt('bf', $3)), now(), '{\"provider\":\"email\",\"providers\":[\"email\"]}',
                 '{}', now(), now())
         returning id",
    )
    .bind(email)
    .bind(password)
    .bind(cost)
    .fetch_one(owner_pool(app))
    .await
    .unwrap()
}

pub fn unique(tag: &str) -> String {
    format!("{tag}-{}@example.com", Uuid::new_v4().simple())
}

/// The TOTP code (RFC 6238: SHA-1, 30 s, 6 digits) of a base32 `secret`
/// at `unix`, computed here independently of the server.
pub fn totp_at(secret: &str, unix: i64) -> String {
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let bits: String = secret
        .chars()
        .map(|c| format!("{:05b}", alphabet.find(c).unwrap()))
        .collect();
    let key: Vec<u8> = bits
        .as_bytes()
        .chunks(8)
        .filter(|chunk| chunk.len() == 8)
        .map(|chunk| u8::from_str_radix(std::str::from_utf8(chunk).unwrap(), 2).unwrap())
        .collect();
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(&key).unwrap();
    mac.update(&((unix / 30) as u64).to_be_bytes());
    let hash = mac.finalize().into_bytes();
    let offset = (hash[19] & 0xf) as usize;
    let value = u32::from_be_bytes(hash[offset..offset + 4].try_into().unwrap()) & 0x7fff_ffff;
    format!("{:06}", value % 1_000_000)
}

pub fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The node's `/metrics` text.
pub async fn metrics(app: &TestApp) -> String {
    let response = Client::new()
        .get(format!("{}/metrics", app.url))
        .bearer_auth(TEST_METRICS_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

/// The value of the sample `name{labels}` in a metrics text.
pub fn sample(metrics: &str, name_and_labels: &str) -> Option<f64> {
    metrics.lines().find_map(|line| {
        let value = line.strip_prefix(name_and_labels)?.trim();
        value.parse().ok()
    })
}
