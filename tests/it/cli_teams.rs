//! `docket team ...` through the real binary: an administrator makes the first team, adds,
//! promotes and removes members, and the last admin is never removed or demoted.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::{docket, docket_json};

fn add_user(d: &Path, email: &str, name: &str) {
    docket_json(d, &["user", "add", email, "--name", name], None);
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Fails unless `args` exit with `code` and one line on stderr holding `says`.
fn refused(d: &Path, args: &[&str], code: i32, says: &str) {
    let out = docket(d, args, None);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
}

fn roles(d: &Path, slug: &str) -> Vec<(String, String)> {
    let list = docket_json(d, &["team", "members", slug], None);
    list.as_array()
        .expect("an array")
        .iter()
        .map(|m| {
            (
                m["email"].as_str().unwrap().to_string(),
                m["role"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn an_admin_makes_a_team_and_manages_its_members() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    add_user(d, "ada@example.com", "Ada");
    add_user(d, "bob@example.com", "Bob");
    add_user(d, "cy@example.com", "Cy");

    assert_eq!(
        docket_json(d, &["team", "list"], None),
        Value::Array(vec![])
    );
    let made = docket_json(
        d,
        &[
            "team",
            "create",
            "Sales Team",
            "--slug",
            "Sales",
            "--admin",
            "ADA@example.com",
        ],
        None,
    );
    assert_eq!(made["slug"], "sales");
    assert_eq!(made["name"], "Sales Team");
    assert_eq!(made["members"], 1);
    assert!(made["id"].is_i64());

    let bob = docket_json(d, &["team", "add", "sales", "bob@example.com"], None);
    assert_eq!(bob["role"], "MEMBER", "the default role");
    assert_eq!(bob["team"], "sales");
    assert!(bob["joined_at"].as_str().unwrap().ends_with('Z'));
    let cy = docket_json(
        d,
        &[
            "team",
            "add",
            "sales",
            "cy@example.com",
            "--role",
            "manager",
        ],
        None,
    );
    assert_eq!(cy["role"], "MANAGER");
    assert_eq!(
        roles(d, "sales"),
        pairs(&[
            ("ada@example.com", "ADMIN"),
            ("cy@example.com", "MANAGER"),
            ("bob@example.com", "MEMBER"),
        ])
    );

    let list = docket_json(d, &["team", "list"], None);
    assert_eq!(list[0]["slug"], "sales");
    assert_eq!(list[0]["members"], 3);

    let promoted = docket_json(
        d,
        &["team", "role", "sales", "bob@example.com", "ADMIN"],
        None,
    );
    assert_eq!(promoted["role"], "ADMIN");
    // With two admins, one of them may step down, and then go.
    docket_json(
        d,
        &["team", "role", "sales", "ada@example.com", "MEMBER"],
        None,
    );
    let gone = docket_json(d, &["team", "remove", "sales", "ada@example.com"], None);
    assert_eq!(gone["removed"], true);
    assert_eq!(
        roles(d, "sales"),
        pairs(&[("bob@example.com", "ADMIN"), ("cy@example.com", "MANAGER")])
    );

    // Human output.
    let out = docket(d, &["team", "members", "sales"], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("EMAIL") && text.contains("bob@example.com"),
        "{text}"
    );
    let out = docket(d, &["team", "list"], None);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("SLUG") && text.contains("Sales Team"),
        "{text}"
    );
}

#[test]
fn team_errors_have_exit_codes_and_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    add_user(d, "ada@example.com", "Ada");
    add_user(d, "bob@example.com", "Bob");
    let create = |slug: &str, admin: &str| {
        docket(
            d,
            &["team", "create", "Sales", "--slug", slug, "--admin", admin],
            None,
        )
    };
    assert!(create("sales", "ada@example.com").status.success());

    // Each refusal: its arguments, exit code and what its one line says.
    let last = "the last admin cannot leave or be demoted";
    for (args, code, says) in [
        (
            "team create Again --slug sales --admin bob@example.com",
            1,
            "is taken",
        ),
        (
            "team create X --slug settings --admin ada@example.com",
            2,
            "reserved",
        ),
        (
            "team create X --slug a_b --admin ada@example.com",
            2,
            "a-z, 0-9",
        ),
        (
            "team create X --slug xyz --admin nobody@example.com",
            1,
            "no user",
        ),
        // The only admin can neither go nor step down.
        ("team remove sales ada@example.com", 1, last),
        ("team role sales ada@example.com MEMBER", 1, last),
        (
            "team add sales ada@example.com",
            1,
            "already a member of sales",
        ),
        (
            "team remove sales bob@example.com",
            1,
            "not a member of sales",
        ),
        (
            "team role sales bob@example.com ADMIN",
            1,
            "not a member of sales",
        ),
        ("team members nowhere", 1, "no team with slug nowhere"),
        (
            "team add nowhere bob@example.com",
            1,
            "no team with slug nowhere",
        ),
        // A team's API key is made only for one of its members.
        (
            "apikey create --user bob@example.com --team sales",
            1,
            "bob@example.com is not a member of the team sales",
        ),
        (
            "apikey create --user ada@example.com --team nowhere",
            1,
            "no team with slug nowhere",
        ),
    ] {
        let args: Vec<&str> = args.split(' ').collect();
        refused(d, &args, code, says);
    }
    assert_eq!(roles(d, "sales"), pairs(&[("ada@example.com", "ADMIN")]));

    // Unknown roles and commands are usage errors.
    for args in [
        "team role sales ada@example.com OWNER",
        "team add sales bob@example.com --role boss",
        "team frobnicate",
    ] {
        let args: Vec<&str> = args.split(' ').collect();
        assert_eq!(docket(d, &args, None).status.code(), Some(2), "{args:?}");
    }
}
