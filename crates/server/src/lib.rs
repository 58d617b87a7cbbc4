//! The `plinth` binary's library: configuration, start-up and the router
//! that composes the services. It owns no service logic of its own; each
//! service crate gives it a router and its SQL, and this crate wires them to
//! one database, one secret and one port.

pub mod app;
pub mod app_routes;
pub mod auth_args;
pub mod backup;
pub mod config;
pub mod functions;
pub mod grants_args;
mod idle_body;
pub mod keys;
pub mod memory;
pub mod metrics;
pub mod mfa_args;
pub mod request_id;
pub mod services;
pub mod startup;

pub use app::{AppState, router};
pub use startup::{ReadTimeouts, migration_sets, run, run_with};
