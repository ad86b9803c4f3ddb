//! Bulk send from a template: a CSV file with one row per document (each template recipient's
//! name and address, values for fields by their label) is checked row by row in a preview
//! that says what is wrong with each bad row before anything is sent; starting it stores the
//! run and every row, and the worker (`worker`) makes and sends one document per good row, each
//! in one transaction with the row's new status, so that a stop never sends a row twice and a
//! run goes on after a restart, on any node. Bounded by rows per file (`--bulk-send-max-rows`)
//! and documents sent per hour in a workspace (`--bulk-send-per-hour`). The web application and
//! the API call the same use cases (`manage`).

pub mod layout;
pub mod manage;
pub mod model;
pub mod send_row;
pub mod sheet;
pub mod store;
pub mod worker;

use crate::core::error::AppError;

/// The bounds of bulk sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most rows one file may have.
    pub max_rows: usize,
    /// Most documents the runs of one workspace send in an hour.
    pub per_hour: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_rows: 500,
            per_hour: 500,
        }
    }
}

/// The hour the per-hour bound counts over.
pub const HOUR: i64 = 3_600;

/// A refusal as a report's reason: the message, and the details that name the problem.
pub fn reason(e: &AppError) -> String {
    match e.details() {
        [] => e.to_string(),
        d => format!(
            "{} ({})",
            e,
            d.iter()
                .map(|d| format!("{}: {}", d.path, d.message))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    }
}

/// Whether `e` says the row cannot be sent (as against the service failing for now).
pub fn is_row_problem(e: &AppError) -> bool {
    matches!(
        e,
        AppError::BadRequest { .. }
            | AppError::Forbidden(_)
            | AppError::NotFound(_)
            | AppError::Unauthorized(_)
            | AppError::Gone(_)
            | AppError::Unprocessable { .. }
    )
}
