//! Per-client-address limits of the functions anyone may call without an
//! account (free orders, view tracking, the newsletter), in memory, per
//! server process, as the auth service's limits are.
//!
//! Each function has a budget of `n` calls per window per address: `n` at
//! once, then one more every `window / n` (a `plinth_limits` budget, as
//! auth's). The address is [`ClientAddress::key`]: the client's IP as the server sees it,
//! an IPv6 address by its /64 (what one subscriber gets). The service role
//! (the operator's own servers) is not limited.

use std::time::Duration;

use plinth_limits::{Budget, Limiter, Stats, retry_after_secs};

use crate::caller::{Caller, ClientAddress};
use crate::config::RateLimits;
use crate::error::FunctionError;

/// The functions with a per-address budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    FreeOrder,
    View,
    Newsletter,
}

/// The budgets of one server process.
#[derive(Debug)]
pub struct ClientLimits {
    free_orders: Limiter,
    views: Limiter,
    newsletter: Limiter,
}

/// `per_window` calls per `window`; no limit for 0.
fn limiter(name: &'static str, per_window: u32, window: Duration) -> Limiter {
    let budget = match per_window {
        0 => Budget::Unlimited,
        n => Budget::per(n, window),
    };
    Limiter::new(name, budget)
}

impl ClientLimits {
    pub fn new(limits: &RateLimits) -> Self {
        Self {
            free_orders: limiter("marketplace free orders", limits.free_orders, limits.window),
            views: limiter("marketplace views", limits.views, limits.window),
            newsletter: limiter("marketplace newsletter", limits.newsletter, limits.window),
        }
    }

    /// Counts one call of `what` by `client`; a 429 (with the seconds to
    /// wait) once the address's budget is spent. The service role passes.
    pub fn check(
        &self,
        what: Limited,
        caller: &Caller,
        client: &ClientAddress,
    ) -> Result<(), FunctionError> {
        if caller.role() == "service_role" {
            return Ok(());
        }
        let limiter = match what {
            Limited::FreeOrder => &self.free_orders,
            Limited::View => &self.views,
            Limited::Newsletter => &self.newsletter,
        };
        limiter
            .check(client.key())
            .map_err(|wait| FunctionError::TooManyRequests(retry_after_secs(wait)))
    }

    /// Each limiter's name and what it holds (for `/metrics`).
    pub fn stats(&self) -> Vec<(&'static str, Stats)> {
        [&self.free_orders, &self.views, &self.newsletter]
            .into_iter()
            .map(|l| (l.name(), l.stats()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn anon() -> Caller {
        Caller {
            claims: json!({"role": "anon"}),
        }
    }

    #[test]
    fn each_function_has_a_budget_per_address() {
        let limits = ClientLimits::new(&RateLimits {
            window: Duration::from_secs(3600),
            free_orders: 2,
            views: 1,
            newsletter: 0,
            emails_per_address: 1,
        });
        let a = ClientAddress::new("192.0.2.1");
        let a_again = ClientAddress::new("192.0.2.1");
        let b = ClientAddress::new("192.0.2.2");
        assert!(limits.check(Limited::FreeOrder, &anon(), &a).is_ok());
        assert!(limits.check(Limited::FreeOrder, &anon(), &a_again).is_ok());
        match limits.check(Limited::FreeOrder, &anon(), &a) {
            // One more call every 30 minutes.
            Err(FunctionError::TooManyRequests(secs)) => assert!((1..=1800).contains(&secs)),
            other => panic!("{other:?}"),
        }
        assert!(limits.check(Limited::FreeOrder, &anon(), &b).is_ok());
        assert!(limits.check(Limited::View, &anon(), &a).is_ok());
        assert!(limits.check(Limited::View, &anon(), &a).is_err());
        for _ in 0..100 {
            assert!(limits.check(Limited::Newsletter, &anon(), &a).is_ok());
        }
        let service = Caller {
            claims: json!({"role": "service_role"}),
        };
        assert!(limits.check(Limited::FreeOrder, &service, &a).is_ok());
    }
}
