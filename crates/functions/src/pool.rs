//! A function's warm workers: a request takes the least busy one with room,
//! starts one more while under `max_workers` (and while the function has
//! fewer than twice that many processes, retired ones included), else waits
//! its turn (at most `queue_wait`, then 503). Dead workers are dropped and
//! replaced on the next request; idle ones are stopped by [`Pool::reap`].

use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::Notify;

use crate::config::Limits;
use crate::error::HostError;
use crate::project::FunctionSpec;
use crate::worker::Worker;

pub struct Pool {
    pub spec: FunctionSpec,
    pub fingerprint: u64,
    workers: Mutex<Vec<Arc<Worker>>>,
    /// Told whenever a request ends or a worker dies.
    freed: Arc<Notify>,
    /// When its files were last compared with `fingerprint`.
    pub checked_at: Mutex<Instant>,
}

/// A request's hold on a worker; given back when dropped (after the
/// response's last byte).
pub struct Lease {
    pub worker: Arc<Worker>,
    freed: Arc<Notify>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.worker.give_back();
        self.freed.notify_waiters();
    }
}

impl Pool {
    pub fn new(spec: FunctionSpec, fingerprint: u64) -> Self {
        Self {
            spec,
            fingerprint,
            workers: Mutex::new(Vec::new()),
            freed: Arc::new(Notify::new()),
            checked_at: Mutex::new(Instant::now()),
        }
    }

    /// A worker for one request, started by `start` when one more is
    /// allowed and needed.
    pub async fn acquire(
        &self,
        limits: &Limits,
        start: impl Fn() -> Arc<Worker>,
    ) -> Result<Lease, HostError> {
        let deadline = tokio::time::Instant::now() + limits.queue_wait;
        loop {
            let notified = self.freed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(worker) = self.pick(limits, &start) {
                return Ok(Lease {
                    worker,
                    freed: self.freed.clone(),
                });
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(HostError::Saturated);
            }
        }
    }

    fn pick(&self, limits: &Limits, start: &impl Fn() -> Arc<Worker>) -> Option<Arc<Worker>> {
        let mut workers = self.workers.lock().ok()?;
        workers.retain(|w| !w.is_dead());
        let best = workers
            .iter()
            .filter(|w| !w.is_retired() && w.in_flight() < limits.worker_concurrency)
            .min_by_key(|w| w.in_flight());
        if let Some(worker) = best {
            worker.take();
            return Some(worker.clone());
        }
        // Retired workers finishing their requests (after a reload, or past
        // the soft CPU limit) do not serve, but they are processes: at most
        // as many again as serve, so repeated retirements cannot pile up.
        let serving = workers.iter().filter(|w| !w.is_retired()).count();
        let live = workers.len();
        if serving < limits.max_workers && live < limits.max_workers.saturating_mul(2) {
            let worker = start();
            worker.take();
            workers.push(worker.clone());
            return Some(worker);
        }
        None
    }

    /// Retires every worker (each stops once its requests are answered).
    pub fn retire_all(&self) {
        if let Ok(workers) = self.workers.lock() {
            for worker in workers.iter() {
                worker.retire();
            }
        }
    }

    /// Stops the workers idle for longer than `limits.idle`.
    pub fn reap(&self, limits: &Limits) {
        if let Ok(mut workers) = self.workers.lock() {
            for worker in workers.iter() {
                if worker.in_flight() == 0 && worker.idle_for() > limits.idle {
                    tracing::debug!(function = %worker.function, worker = worker.id, "idle worker stopped");
                    worker.retire();
                }
            }
            workers.retain(|w| !w.is_dead());
        }
    }

    /// Told when a request ends or a worker dies (a worker is started with
    /// it, so that its death wakes the waiters, which then start another).
    pub fn freed(&self) -> Arc<Notify> {
        self.freed.clone()
    }

    /// Live workers (for tests and the metrics).
    pub fn workers(&self) -> Vec<Arc<Worker>> {
        self.workers
            .lock()
            .map(|w| w.iter().filter(|w| !w.is_dead()).cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use tokio::sync::Notify;

    use super::Pool;
    use crate::config::Limits;
    use crate::error::HostError;
    use crate::project::FunctionSpec;
    use crate::worker::Worker;

    #[tokio::test]
    async fn retired_workers_still_answering_count_up_to_twice_max_workers() {
        let spec = FunctionSpec {
            name: "busy".into(),
            dir: "/nonexistent".into(),
            entrypoint: "/nonexistent/index.ts".into(),
            verify_jwt: false,
            deno_config: None,
            import_map: None,
            static_files: Vec::new(),
        };
        let pool = Pool::new(spec.clone(), 0);
        let limits = Limits {
            max_workers: 2,
            worker_concurrency: 1,
            queue_wait: Duration::from_millis(200),
            ..Limits::default()
        };
        // Workers that never start; each ends when its `end` is told.
        let ends = Mutex::new(Vec::<Arc<Notify>>::new());
        let start = || {
            let end = Arc::new(Notify::new());
            let mut ends = ends.lock().unwrap();
            ends.push(end.clone());
            let id = u64::try_from(ends.len()).unwrap();
            let prepare = async move {
                end.notified().await;
                Err("ended".to_owned())
            };
            Worker::start(id, &spec, "/nonexistent.sock".into(), pool.freed(), prepare)
        };
        let mut leases = Vec::new();
        for _ in 0..2 {
            leases.push(pool.acquire(&limits, start).await.unwrap());
        }
        // Both retire (as past the soft CPU limit) with a request each: two
        // more serve in their place.
        for lease in &leases {
            lease.worker.retire();
        }
        for _ in 0..2 {
            leases.push(pool.acquire(&limits, start).await.unwrap());
        }
        assert_eq!(pool.workers().len(), 4);
        // Those retire too: no fifth process, the request waits, then 503.
        for lease in &leases[2..] {
            lease.worker.retire();
        }
        assert!(matches!(
            pool.acquire(&limits, start).await,
            Err(HostError::Saturated)
        ));
        assert_eq!(pool.workers().len(), 4);
        // One of them ends: a waiting request gets a new worker at once.
        let limits = Limits {
            queue_wait: Duration::from_secs(10),
            ..limits
        };
        let first_end = ends.lock().unwrap()[0].clone();
        let waiting = pool.acquire(&limits, start);
        let (lease, ()) = tokio::join!(waiting, async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            first_end.notify_one();
        });
        let lease = lease.unwrap();
        assert_eq!(lease.worker.id, 5);
        assert_eq!(pool.workers().len(), 4);
    }
}
