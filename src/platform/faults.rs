//! Fault points: tests arm a named point to fail the next N times it is passed, to prove that a
//! failure there loses nothing and repeats no effect. The failure is a busy database, the
//! transient kind that callers retry (`AppError::is_transient`). Unarmed (always, outside tests), a check
//! is a lookup in an empty map.
use crate::error::{AppError, AppResult, DbFault};
use std::collections::HashMap;
use std::sync::Mutex;

/// Writing a tool's result to the thread, after the tool has had its effect.
pub const TOOL_RESULT_WRITE: &str = "turn.tool_result_write";
/// Each pass of a campaign's send engine.
pub const SEND_LOOP: &str = "engine.send_loop";
/// Each pass of a campaign's draft engine.
pub const DRAFT_LOOP: &str = "engine.draft_loop";
/// Running an approved plan.
pub const PLAN_EXECUTE: &str = "plan.execute";

#[derive(Default)]
pub struct FaultPoints(Mutex<HashMap<&'static str, u32>>);

impl FaultPoints {
    /// The next `times` checks of `point` fail.
    pub fn arm(&self, point: &'static str, times: u32) {
        self.0.lock().expect("faults").insert(point, times);
    }

    /// Fails if `point` is armed, counting the failure down.
    pub fn check(&self, point: &'static str) -> AppResult<()> {
        let mut armed = self.0.lock().expect("faults");
        match armed.get_mut(point) {
            Some(n) if *n > 0 => {
                *n -= 1;
                tracing::warn!(point, "injected fault");
                Err(AppError::Database(DbFault::Busy))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_armed_point_fails_as_often_as_asked() {
        let f = FaultPoints::default();
        assert!(f.check(TOOL_RESULT_WRITE).is_ok());
        f.arm(TOOL_RESULT_WRITE, 2);
        assert!(f.check(TOOL_RESULT_WRITE).is_err_and(|e| e.is_transient()));
        assert!(f.check(TOOL_RESULT_WRITE).is_err());
        assert!(f.check(TOOL_RESULT_WRITE).is_ok());
    }
}
