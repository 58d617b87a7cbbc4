//! Security tests: files.
