//! The `plinth` binary and its router against a real PostgreSQL.

mod cli;
mod cluster;
mod health;
mod helpers;
