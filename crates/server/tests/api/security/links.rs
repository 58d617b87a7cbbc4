//! Security tests: links.
