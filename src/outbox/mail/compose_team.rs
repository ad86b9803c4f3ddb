//! The messages of teams: an invitation to join one, and the notices to a person an
//! administrator added to a team or removed from it (leaving on one's own sends nothing).

use super::compose::templates;

/// An invitation to join `team` as `role`, sent by `inviter` to `to`: the link joins (or
/// creates the account on the way) and works once, until `expires`.
#[derive(Debug, Clone)]
pub struct TeamInvitation<'a> {
    pub team: &'a str,
    pub inviter: &'a str,
    /// The role, as words in a sentence ("a member", "a manager", "an admin").
    pub role: &'a str,
    pub to: &'a str,
    pub link: &'a str,
    /// When the link stops working, as people read a date.
    pub expires: &'a str,
}

templates!(
    TeamInvitation,
    "mail/team_invitation.html",
    "mail/team_invitation.txt"
);

impl TeamInvitation<'_> {
    fn subject(&self) -> String {
        format!(
            "{} invited you to the team \"{}\" on Docket",
            self.inviter, self.team
        )
    }

    fn greeted(&self) -> &str {
        ""
    }
}

/// To `name`: `by` (an admin's name, or "An administrator") added them to `team` as `role`;
/// (words in a sentence, as for the invitation); `link` is the team's pages.
#[derive(Debug, Clone)]
pub struct TeamAdded<'a> {
    pub name: &'a str,
    pub team: &'a str,
    pub role: &'a str,
    pub by: &'a str,
    pub link: &'a str,
}

templates!(TeamAdded, "mail/team_added.html", "mail/team_added.txt");

impl TeamAdded<'_> {
    fn subject(&self) -> String {
        format!("You were added to the team \"{}\"", self.team)
    }

    fn greeted(&self) -> &str {
        self.name
    }
}

/// To `name`: `by` (an admin's name, or "An administrator") removed them from `team`.
#[derive(Debug, Clone)]
pub struct TeamRemoved<'a> {
    pub name: &'a str,
    pub team: &'a str,
    pub by: &'a str,
}

templates!(
    TeamRemoved,
    "mail/team_removed.html",
    "mail/team_removed.txt"
);

impl TeamRemoved<'_> {
    fn subject(&self) -> String {
        format!("You were removed from the team \"{}\"", self.team)
    }

    fn greeted(&self) -> &str {
        self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invitation_names_the_team_the_inviter_the_role_and_the_end() {
        let m = TeamInvitation {
            team: "Sales <b>",
            inviter: "Ada",
            role: "a manager",
            to: "bo@x.org",
            link: "https://d.example/invitations/abc",
            expires: "13 Dec 2026, 10:00 UTC",
        }
        .compose();
        assert_eq!(
            m.subject,
            "Ada invited you to the team \"Sales <b>\" on Docket"
        );
        for said in [
            "as a manager",
            "bo@x.org",
            "https://d.example/invitations/abc",
            "until 13 Dec 2026, 10:00 UTC",
        ] {
            assert!(m.text.contains(said), "{said}: {}", m.text);
        }
        assert!(m.html.contains("Sales &lt;b&gt;") && !m.html.contains("<b>"));
        let added = TeamAdded {
            name: "Bo",
            team: "Sales",
            role: "a member",
            by: "An administrator",
            link: "https://d.example/t/sales",
        }
        .compose();
        assert!(added.text.starts_with("Hello Bo,"));
        assert!(
            added
                .text
                .contains("An administrator added you to the team \"Sales\"")
        );
        let removed = TeamRemoved {
            name: "Bo",
            team: "Sales",
            by: "Ada",
        }
        .compose();
        assert_eq!(removed.subject, "You were removed from the team \"Sales\"");
        assert!(removed.text.contains("Ada removed you"));
    }
}
