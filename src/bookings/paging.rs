//! Pages and limits of booking lists, bounded whatever the caller asks.
use super::*;

/// A whole number in `min..=max` from a query parameter, `default` when absent.
pub fn bounded(
    name: &str,
    raw: Option<&str>,
    default: u32,
    min: u32,
    max: u32,
) -> Result<u32, FieldError> {
    match raw.map(str::trim) {
        None => Ok(default),
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| FieldError {
                path: name.to_string(),
                message: format!("give a whole number from {min} to {max}"),
            }),
    }
}

/// `?limit=` of `GET /listBookings`: 1..=100, 50 when absent.
pub fn parse_limit(raw: Option<&str>) -> Result<u32, AppError> {
    bounded("limit", raw, 50, 1, 100).map_err(|e| AppError::validation(vec![e]))
}

/// One page of a listing, with an optional status filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub per_page: u32,
    pub status: Option<Status>,
}

impl PageRequest {
    pub fn offset(&self) -> i64 {
        (i64::from(self.page) - 1) * i64::from(self.per_page)
    }

    /// Pages needed for `total` items (0 when there are none).
    pub fn total_pages(&self, total: i64) -> i64 {
        (total + i64::from(self.per_page) - 1) / i64::from(self.per_page)
    }
}

/// `?page` (from 1), `?perPage` (1..=100, default 10) and `?status` of `GET /api/v1/bookings`.
pub fn parse_page(
    page: Option<&str>,
    per_page: Option<&str>,
    status: Option<&str>,
) -> Result<PageRequest, AppError> {
    let mut p = Problems::default();
    let page = bounded("page", page, 1, 1, u32::MAX).unwrap_or_else(|e| {
        p.list().push(e);
        1
    });
    let per_page = bounded("perPage", per_page, 10, 1, 100).unwrap_or_else(|e| {
        p.list().push(e);
        10
    });
    let status = match status.map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Status::parse(s).or_else(|| {
            p.add("status", "use ACCEPTED, PENDING, CANCELLED or REJECTED");
            None
        }),
    };
    p.into_result(|| PageRequest {
        page,
        per_page,
        status,
    })
}
