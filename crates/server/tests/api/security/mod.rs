//! The security suite: one regression test per hole of the hostile reviews,
//! each named after the item it closes (`item_NN_…` for the first review,
//! issue 14; `review2_item_NN_…` for the second, issue 42), so that
//! `cargo test -p plinth-server --test api security::` runs them all and a
//! failing name says which hole reopened; `support` holds what they share.
//! The Node half (the unmodified supabase-js) is `sdk-ts/tests/security/`,
//! the browser half (the XSS cases) `app/e2e/walks/security-*.mjs`.

mod abuse;
mod auth;
mod backups;
mod console;
mod database_role;
mod files;
mod functions_cpu;
mod limits;
mod links;
mod mfa;
mod realtime;
mod renditions;
mod support;
mod tokens;
