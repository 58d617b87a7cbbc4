//! Security tests: abuse.
