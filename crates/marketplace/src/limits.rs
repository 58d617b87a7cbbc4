//! Per-client-address limits of the functions anyone may call without an
//! account (free orders, view tracking, the newsletter), in memory, per
//! server process, as the auth service's limits are.
//!
//! Each function has a budget of `n` calls per window per address: `n` at
//! once, then one more every `window / n` (GCRA, through `governor`). The
//! address is [`ClientAddress::key`]: the client's IP as the server sees it,
//! an IPv6 address by its /64 (what one subscriber gets). The service role
//! (the operator's own servers) is not limited.

use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

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

/// Forget idle addresses once this many are tracked.
const PRUNE_AT: usize = 10_000;

/// The budgets of one server process.
pub struct ClientLimits {
    free_orders: Option<DefaultKeyedRateLimiter<String>>,
    views: Option<DefaultKeyedRateLimiter<String>>,
    newsletter: Option<DefaultKeyedRateLimiter<String>>,
    clock: DefaultClock,
}

impl std::fmt::Debug for ClientLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientLimits").finish_non_exhaustive()
    }
}

/// `per_window` calls per `window`; `None` (no limit) for 0 or a zero window.
fn limiter(per_window: u32, window: Duration) -> Option<DefaultKeyedRateLimiter<String>> {
    let burst = NonZeroU32::new(per_window)?;
    let quota = Quota::with_period(window / per_window)?.allow_burst(burst);
    Some(RateLimiter::keyed(quota))
}

impl ClientLimits {
    pub fn new(limits: &RateLimits) -> Self {
        Self {
            free_orders: limiter(limits.free_orders, limits.window),
            views: limiter(limits.views, limits.window),
            newsletter: limiter(limits.newsletter, limits.window),
            clock: DefaultClock::default(),
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
        let Some(limiter) = limiter else {
            return Ok(());
        };
        if limiter.len() > PRUNE_AT {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        limiter.check_key(&client.key()).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.clock.now());
            FunctionError::TooManyRequests(wait.as_secs_f64().ceil().max(1.0) as u64)
        })
    }
}

/// The key of an address: an IPv4 address (also one mapped into IPv6) as
/// it is, an IPv6 address by its /64, anything else (no address known) as
/// it is.
pub fn address_key(address: &str) -> String {
    match address.trim().parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                format!("{}/64", Ipv6Addr::from(prefix))
            }
        },
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Err(_) => address.trim().to_owned(),
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
    fn addresses_are_keyed_by_subscriber() {
        assert_eq!(address_key("203.0.113.9"), "203.0.113.9");
        assert_eq!(address_key("::ffff:203.0.113.9"), "203.0.113.9");
        assert_eq!(address_key("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
        assert_eq!(
            address_key("2001:db8:1:2:ffff:ffff:ffff:ffff"),
            "2001:db8:1:2::/64"
        );
        assert_eq!(address_key("unknown"), "unknown");
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
