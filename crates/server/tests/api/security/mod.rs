//! The security suite: one regression test per hole of the hostile review
//! (issue 14), each named `item_NN_…` after the item it closes, so that
//! `cargo test -p plinth-server --test api security::` runs them all and a
//! failing name says which hole reopened. The Node half (the unmodified
//! supabase-js) is `sdk-ts/tests/security/`, the browser half (the XSS
//! cases) `app/e2e/walks/security-*.mjs`.

mod abuse;
mod auth;
mod backups;
mod files;
mod functions_cpu;
mod links;
mod realtime;
mod tokens;
