//! The server itself: the accept loop (`accept`), connection and body limits, the middleware
//! every request passes, the client address behind a proxy, the log's view of paths, the rate
//! limits, the state every handler is given, and the health checks.

pub mod accept;
pub mod activity;
pub mod health;
pub mod limits;
pub mod middleware;
pub mod progress;
pub mod proxy;
pub mod rate_limits;
pub mod redact;
pub mod state;

use warp::filters::BoxedFilter;
use warp::reply::Response;

use self::state::AppState;

pub use self::accept::serve;

/// The server's own routes: the health checks.
pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    health::routes(state)
}
