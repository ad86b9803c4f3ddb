//! One page of a search, as the signing service's API v2 answers its finds:
//! `{data, count, currentPage, perPage, totalPages}`. Envelopes, documents, templates and
//! folders are paged with it.

use serde::Serialize;

/// A page of a find: the peer's `{data, count, currentPage, perPage, totalPages}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub data: Vec<T>,
    pub count: i64,
    pub current_page: i64,
    pub per_page: i64,
    pub total_pages: i64,
}

impl<T> Page<T> {
    /// `data`, page `page` of `per_page` (at least 1) of a search that finds `count` in all.
    pub fn of(data: Vec<T>, count: i64, (page, per_page): (i64, i64)) -> Page<T> {
        let per = per_page.max(1);
        Page {
            data,
            count,
            current_page: page,
            per_page,
            total_pages: (count + per - 1) / per,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_last_page_holds_the_rest() {
        let p = super::Page::of(vec![1], 21, (3, 10));
        assert_eq!((p.total_pages, p.current_page, p.per_page), (3, 3, 10));
        assert_eq!(super::Page::<i32>::of(vec![], 0, (1, 10)).total_pages, 0);
    }
}
