//! Which workspace a page of the web application is in: the user's personal one at `/...`, or a
//! team's at `/t/{slug}/...`. Every page route starts with [`place`], so one page serves both;
//! the page's use cases act for the place (`Principal::acting_for`), where the ownership rule
//! decides what the user reaches (`teams::access`): a team they are not in is a 404.

use warp::Filter;

use crate::identity::principal::{ActsFor, Principal};
use crate::identity::users::User;

/// The workspace of a page, as its path says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Personal,
    /// The team at this slug (shaped as a slug; membership is checked by the use cases).
    Team(String),
}

impl Place {
    /// What every link of the place starts with: nothing, or `/t/{slug}`.
    pub fn base(&self) -> String {
        match self {
            Place::Personal => String::new(),
            Place::Team(slug) => format!("/t/{slug}"),
        }
    }

    /// The path `path` (starting with `/`) in this place; the place's dashboard for `/`.
    pub fn link(&self, path: &str) -> String {
        match (self, path) {
            (Place::Team(_), "/") => self.base(),
            _ => format!("{}{path}", self.base()),
        }
    }

    /// The user's browser acting in this place.
    pub fn principal(&self, user: &User) -> Principal {
        Principal::browser(user.id).acting_for(self.acts_for())
    }

    pub fn acts_for(&self) -> ActsFor {
        match self {
            Place::Personal => ActsFor::Personal,
            Place::Team(slug) => ActsFor::Slug(slug.clone()),
        }
    }

    /// The team's slug, or `None` for the personal place.
    pub fn slug(&self) -> Option<&str> {
        match self {
            Place::Personal => None,
            Place::Team(slug) => Some(slug),
        }
    }
}

/// The place a path starts in: `/t/{slug}` (consumed) when its first segments say so, else the
/// personal place (nothing consumed). A segment after `t` that cannot be a slug is no team's:
/// the path is then read as a personal one, which has no `t` pages, so it is a 404.
pub fn place() -> impl Filter<Extract = (Place,), Error = std::convert::Infallible> + Clone {
    let team = warp::path!("t" / String / ..).and_then(|slug: String| async move {
        match crate::teams::slug::problem(&slug) {
            None => Ok(Place::Team(slug)),
            Some(_) => Err(warp::reject::not_found()),
        }
    });
    team.or(warp::any().map(|| Place::Personal)).unify()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The place `path` is in for a page at `templates` (`None`: no such page).
    async fn placed(path: &str) -> Option<Place> {
        let f = place().and(warp::path!("templates"));
        warp::test::request().path(path).filter(&f).await.ok()
    }

    #[tokio::test]
    async fn a_team_path_is_its_teams_and_the_rest_is_personal() {
        let acme = Place::Team("acme".into());
        assert_eq!(placed("/t/acme/templates").await, Some(acme));
        assert_eq!(placed("/templates").await, Some(Place::Personal));
        // Not a slug, or no slug: no page.
        assert_eq!(placed("/t/Not%20One/templates").await, None);
        assert_eq!(placed("/t/templates").await, None);
        assert_eq!(placed("/t/acme/templates/x").await, None);
    }

    #[test]
    fn links_start_with_the_place() {
        let acme = Place::Team("acme".into());
        assert_eq!(acme.link("/"), "/t/acme");
        assert_eq!(acme.link("/templates/4"), "/t/acme/templates/4");
        assert_eq!(Place::Personal.link("/"), "/");
        assert_eq!(Place::Personal.link("/templates"), "/templates");
    }
}
