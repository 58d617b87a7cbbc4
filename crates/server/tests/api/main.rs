//! The `plinth` binary and its router against a real PostgreSQL.

mod app_config;
mod backups;
mod cli;
mod cluster;
mod console;
mod faults;
mod health;
mod helpers;
mod marketplace_functions;
mod marketplace_policies;
mod marketplace_queries;
mod marketplace_support;
mod marketplace_versions;
mod metrics;
// The storage suite's S3 server (moto on loopback), shared as it is.
#[allow(dead_code)]
#[path = "../../../storage/tests/api/moto.rs"]
mod moto;
mod pages;
mod security;
mod sockets;
mod user_functions;
mod uuid_defaults;
