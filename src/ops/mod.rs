//! Operations: the health checks. The Prometheus metrics are the base's (`platform::metrics`).
pub mod health;
