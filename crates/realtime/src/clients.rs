//! Open sockets per client address and per user, each capped
//! ([`crate::RealtimeConfig::max_connections_per_ip`] and
//! [`crate::RealtimeConfig::max_connections_per_user`]), so that one client
//! cannot take a node's every socket. A slot is held for a socket's life and
//! given back when it is dropped; counts that reach zero are forgotten, so
//! the table holds only the clients connected now.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Client {
    Address(String),
    User(String),
}

/// Which cap a new socket would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    Address,
    User,
}

impl Refused {
    pub fn message(self) -> &'static str {
        match self {
            Self::Address => "Too many connections from this address",
            Self::User => "Too many connections for this user",
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Clients {
    open: Mutex<HashMap<Client, usize>>,
}

impl Clients {
    /// Takes a slot for a socket of `address` (and `user`, when the token
    /// names one), unless either is at its cap.
    pub fn open(
        self: &Arc<Self>,
        address: String,
        user: Option<String>,
        per_address: usize,
        per_user: usize,
    ) -> Result<Slot, Refused> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let address = Client::Address(address);
        if open.get(&address).copied().unwrap_or(0) >= per_address {
            return Err(Refused::Address);
        }
        let user = user.map(Client::User);
        if let Some(user) = &user
            && open.get(user).copied().unwrap_or(0) >= per_user
        {
            return Err(Refused::User);
        }
        for client in std::iter::once(&address).chain(user.as_ref()) {
            *open.entry(client.clone()).or_default() += 1;
        }
        Ok(Slot {
            clients: self.clone(),
            address,
            user,
        })
    }

    fn close(&self, client: &Client) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = open.get_mut(client) {
            *count -= 1;
            if *count == 0 {
                open.remove(client);
            }
        }
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.open.lock().unwrap().len()
    }
}

/// One socket's place in the counts; given back on drop.
#[derive(Debug)]
pub(crate) struct Slot {
    clients: Arc<Clients>,
    address: Client,
    user: Option<Client>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.clients.close(&self.address);
        if let Some(user) = &self.user {
            self.clients.close(user);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cap_holds_and_slots_come_back() {
        let clients = Arc::new(Clients::default());
        let a = clients.open("10.0.0.1".into(), None, 2, 1).unwrap();
        let _b = clients
            .open("10.0.0.1".into(), Some("u".into()), 2, 1)
            .unwrap();
        assert_eq!(
            clients.open("10.0.0.1".into(), None, 2, 1).unwrap_err(),
            Refused::Address
        );
        assert_eq!(
            clients
                .open("10.0.0.2".into(), Some("u".into()), 2, 1)
                .unwrap_err(),
            Refused::User
        );
        // Another address and another user are not held back.
        let _c = clients
            .open("10.0.0.2".into(), Some("v".into()), 2, 1)
            .unwrap();
        drop(a);
        let _d = clients.open("10.0.0.1".into(), None, 2, 1).unwrap();
    }

    #[test]
    fn clients_without_sockets_are_forgotten() {
        let clients = Arc::new(Clients::default());
        let slots: Vec<Slot> = (0..100)
            .map(|i| {
                clients
                    .open(format!("10.0.{i}.1"), Some(format!("user-{i}")), 1, 1)
                    .unwrap()
            })
            .collect();
        assert_eq!(clients.tracked(), 200);
        drop(slots);
        assert_eq!(clients.tracked(), 0);
    }
}
