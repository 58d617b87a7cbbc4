//! Security tests: auth.
