//! embeds: PostgREST v14 cases.

#[allow(unused_imports)]
use crate::spawn;
