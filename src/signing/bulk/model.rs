//! A bulk send as stored and as the API shows it: the run, its rows and their counts.

use serde::Serialize;

use crate::core::ids::{BulkSendId, DocumentId, TeamId, TemplateId, UserId};
use crate::core::owner::Visibility;

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schema(as = BulkSendStatus)]
pub enum RunStatus {
    /// Rows are still to be sent.
    Running,
    /// Every row is sent, failed or skipped.
    Done,
    /// Stopped by its owner; the rows not yet sent were not.
    Cancelled,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "RUNNING",
            RunStatus::Done => "DONE",
            RunStatus::Cancelled => "CANCELLED",
        }
    }

    pub fn parse(s: &str) -> Option<RunStatus> {
        [RunStatus::Running, RunStatus::Done, RunStatus::Cancelled]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

crate::sql_text_enum!(RunStatus);

/// Where a row stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schema(as = BulkSendRowStatus)]
pub enum RowStatus {
    /// Waiting for its turn.
    Pending,
    /// Its document was made and sent.
    Sent,
    /// It could not be sent (the template changed, the account may no longer); `reason` says.
    Failed,
    /// Bad when the run started (as the preview showed); never sent.
    Skipped,
    /// The run was cancelled before its turn.
    Cancelled,
}

impl RowStatus {
    pub const ALL: [RowStatus; 5] = [
        RowStatus::Pending,
        RowStatus::Sent,
        RowStatus::Failed,
        RowStatus::Skipped,
        RowStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RowStatus::Pending => "PENDING",
            RowStatus::Sent => "SENT",
            RowStatus::Failed => "FAILED",
            RowStatus::Skipped => "SKIPPED",
            RowStatus::Cancelled => "CANCELLED",
        }
    }

    pub fn parse(s: &str) -> Option<RowStatus> {
        RowStatus::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

crate::sql_text_enum!(RowStatus);

/// A run as stored.
#[derive(Debug, Clone)]
pub struct Run {
    pub id: BulkSendId,
    pub template_id: Option<TemplateId>,
    pub template_title: String,
    pub user_id: UserId,
    pub team_id: Option<TeamId>,
    pub visibility: Visibility,
    pub file_name: String,
    pub send_email: bool,
    pub status: RunStatus,
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

/// A row as stored.
#[derive(Debug, Clone)]
pub struct StoredRow {
    pub line: u64,
    pub request: crate::signing::templates::row::Row,
    pub status: RowStatus,
    pub reason: Option<String>,
    pub document_id: Option<DocumentId>,
    pub done_at: Option<i64>,
}

/// How many rows are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BulkSendCounts)]
pub struct Counts {
    pub total: u64,
    pub pending: u64,
    pub sent: u64,
    pub failed: u64,
    pub skipped: u64,
    pub cancelled: u64,
}

impl Counts {
    pub fn add(&mut self, status: RowStatus, n: u64) {
        self.total += n;
        match status {
            RowStatus::Pending => self.pending += n,
            RowStatus::Sent => self.sent += n,
            RowStatus::Failed => self.failed += n,
            RowStatus::Skipped => self.skipped += n,
            RowStatus::Cancelled => self.cancelled += n,
        }
    }

    /// The rows that were to be sent when the run started.
    pub fn to_send(&self) -> u64 {
        self.total - self.skipped
    }
}

/// A run as the API shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BulkSend)]
pub struct RunView {
    pub id: BulkSendId,
    #[schema(required = true)]
    pub template_id: Option<TemplateId>,
    pub template_title: String,
    pub file_name: String,
    pub send_email: bool,
    pub status: RunStatus,
    pub counts: Counts,
    /// While the hourly limit holds the run back: when it goes on (Unix seconds).
    #[schema(required = true)]
    pub waiting_until: Option<i64>,
    /// Unix seconds.
    pub created_at: i64,
    #[schema(required = true)]
    pub finished_at: Option<i64>,
}

/// A row as the API shows it (`GET /api/v1/bulk-sends/{id}` and the report).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BulkSendRow)]
pub struct RowView {
    /// The file's line the row starts on (the header is line 1).
    pub line: u64,
    pub status: RowStatus,
    #[schema(required = true)]
    pub reason: Option<String>,
    #[schema(required = true)]
    pub document_id: Option<DocumentId>,
    /// The recipients' addresses as the row gives them, in the template's order (empty: the
    /// template's).
    pub emails: Vec<String>,
    #[schema(required = true)]
    pub title: Option<String>,
}

impl RowView {
    pub fn of(r: &StoredRow) -> RowView {
        RowView {
            line: r.line,
            status: r.status,
            reason: r.reason.clone(),
            document_id: r.document_id,
            emails: r
                .request
                .recipients
                .iter()
                .map(|p| p.email.clone().unwrap_or_default())
                .collect(),
            title: r.request.title.clone(),
        }
    }
}

/// A run with its rows.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BulkSendWithRows)]
pub struct RunDetail {
    #[serde(flatten)]
    pub run: RunView,
    pub rows: Vec<RowView>,
}
