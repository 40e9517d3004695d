//! Operations: health check and Prometheus metrics.
pub mod health;
pub mod metrics;
