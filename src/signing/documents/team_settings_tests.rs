//! A team's settings at the domain level: the documents' rules check each value, members read,
//! admins change, the defaults fill only what a request left out, and the sender recipients
//! see.

use super::*;
use crate::core::db::Db;
use crate::core::i18n::Lang;
use crate::core::ids::UserId;
use crate::teams::{TeamRole, store as team_store};

async fn setup() -> (tempfile::TempDir, Context) {
    let tmp = tempfile::tempdir().unwrap();
    let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
    db.write(|c| {
        for (id, name) in [(1, "Ada"), (2, "Bob"), (3, "Cy"), (4, "Dan")] {
            c.execute(
                "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                 VALUES (?1, ?2, ?2, ?3, 'x', 0, 0)",
                params![id, format!("{name}@x.org"), name],
            )?;
        }
        let t = team_store::insert(c, "Sales", "sales", 0)?;
        for (user, role) in [
            (1, TeamRole::Admin),
            (2, TeamRole::Manager),
            (3, TeamRole::Member),
        ] {
            team_store::add_member(c, t.id, UserId::new(user), role, 0)?;
        }
        team_store::insert(c, "Legal", "legal", 0)?;
        Ok(())
    })
    .await
    .unwrap();
    let ctx = Context::for_tests(db, tmp.path());
    (tmp, ctx)
}

fn user(id: i64) -> Principal {
    Principal::browser(UserId::new(id))
}

fn paths(e: &AppError) -> Vec<&str> {
    e.details().iter().map(|d| d.path.as_str()).collect()
}

#[test]
fn each_value_is_checked_by_the_rule_a_documents_meta_is() {
    let ok = Change {
        name: Some("  Sales EU ".into()),
        sender_name: Some(" Sales Ltd ".into()),
        signing_order: Some("sequential".into()),
        date_format: Some("dd/MM/yyyy".into()),
        time_zone: Some("Europe/Paris".into()),
        redirect_url: Some("HTTPS://Done.Example".into()),
        language: Some("pt-BR".into()),
        expiration_period: Some(" 2 weeks".into()),
    }
    .check()
    .unwrap();
    assert_eq!(
        ok.expiration_period,
        Some(Some(crate::signing::documents::deadline::Period::After {
            unit: crate::signing::documents::deadline::Unit::Week,
            amount: 2
        }))
    );
    assert_eq!(
        ok.language,
        Some(Some(Lang::Pt)),
        "a region names its language"
    );
    assert_eq!(ok.name.as_deref(), Some("Sales EU"));
    assert_eq!(ok.sender_name, Some(Some("Sales Ltd".into())));
    assert_eq!(ok.signing_order, Some(Some(SigningOrder::Sequential)));
    assert_eq!(ok.date_format, Some(Some("dd/MM/yyyy".into())));
    assert_eq!(ok.time_zone, Some(Some("Europe/Paris".into())));
    assert_eq!(
        ok.redirect_url,
        Some(Some("https://done.example/".into())),
        "normalised as meta.redirectUrl is"
    );

    let blank = Change {
        sender_name: Some("  ".into()),
        redirect_url: Some(String::new()),
        ..Change::default()
    }
    .check()
    .unwrap();
    assert_eq!(
        (blank.sender_name, blank.redirect_url, blank.time_zone),
        (Some(None), Some(None), None),
        "blank clears, left out keeps"
    );

    let bad = Change {
        name: Some(" ".into()),
        sender_name: Some("n".repeat(SENDER_NAME_MAX + 1)),
        signing_order: Some("RANDOM".into()),
        date_format: Some("whatever".into()),
        time_zone: Some("Mars/Base".into()),
        redirect_url: Some("javascript:alert(1)".into()),
        language: Some("klingon".into()),
        expiration_period: None,
    }
    .check()
    .unwrap_err();
    assert_eq!(
        paths(&bad),
        [
            "name",
            "senderName",
            "signingOrder",
            "dateFormat",
            "timeZone",
            "redirectUrl",
            "language"
        ]
    );
    let messages: Vec<&str> = bad.details().iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages[2], "must be PARALLEL or SEQUENTIAL");
    assert_eq!(messages[3], meta::date_format("whatever").unwrap_err());
    assert_eq!(messages[4], meta::time_zone("Mars/Base").unwrap_err());
    assert_eq!(
        messages[5],
        meta::redirect_url("javascript:alert(1)").unwrap_err()
    );
    let control = Change {
        sender_name: Some("a\u{7}b".into()),
        ..Change::default()
    };
    assert_eq!(paths(&control.check().unwrap_err()), ["senderName"]);
    assert!(
        Change {
            sender_name: Some("é".repeat(SENDER_NAME_MAX)),
            ..Change::default()
        }
        .check()
        .is_ok()
    );
}

#[tokio::test]
async fn members_read_admins_change_and_others_see_no_team() {
    let (_tmp, ctx) = setup().await;
    let read_by = |id| {
        let ctx = ctx.clone();
        async move { read(&ctx, &user(id), "sales").await }
    };
    let fresh = read_by(3).await.unwrap();
    assert_eq!(
        fresh,
        TeamSettings {
            name: "Sales".into(),
            slug: "sales".into(),
            sender_name: None,
            defaults: Defaults::default(),
        }
    );
    let e = read_by(4).await.unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        ("not_found", "team not found".into())
    );

    let change = Change {
        name: Some("Sales EU".into()),
        sender_name: Some("Sales Ltd".into()),
        signing_order: Some("SEQUENTIAL".into()),
        time_zone: Some("Europe/Paris".into()),
        ..Change::default()
    };
    for (who, code) in [(2, "forbidden"), (3, "forbidden"), (4, "not_found")] {
        let e = update(&ctx, &user(who), "sales", change.clone())
            .await
            .unwrap_err();
        assert_eq!(e.code(), code, "user {who}");
    }
    let e = update(&ctx, &user(2), "sales", change.clone())
        .await
        .unwrap_err();
    assert_eq!(e.to_string(), "only the team's admins manage its settings");
    // An admin of another team is nobody here.
    let e = update(&ctx, &user(1), "legal", change.clone())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "not_found");
    assert_eq!(read_by(3).await.unwrap(), fresh, "nothing changed");

    let changed = update(&ctx, &user(1), "sales", change).await.unwrap();
    assert_eq!(changed.name, "Sales EU");
    assert_eq!(changed.sender_name.as_deref(), Some("Sales Ltd"));
    assert_eq!(
        changed.defaults.signing_order,
        Some(SigningOrder::Sequential)
    );
    assert_eq!(changed.defaults.time_zone.as_deref(), Some("Europe/Paris"));
    assert_eq!(read_by(3).await.unwrap(), changed, "a member reads it");

    // Values left out stay; a blank one goes back to the default; bad ones change nothing.
    let cleared = update(
        &ctx,
        &user(1),
        "sales",
        Change {
            sender_name: Some(String::new()),
            date_format: Some("yyyy-MM-dd".into()),
            ..Change::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(cleared.sender_name, None);
    assert_eq!(cleared.defaults.date_format.as_deref(), Some("yyyy-MM-dd"));
    assert_eq!(cleared.defaults.time_zone.as_deref(), Some("Europe/Paris"));
    let bad = Change {
        time_zone: Some("Mars/Base".into()),
        ..Change::default()
    };
    let e = update(&ctx, &user(1), "sales", bad).await.unwrap_err();
    assert_eq!(paths(&e), ["timeZone"]);
    assert_eq!(read_by(1).await.unwrap(), cleared);

    // The system (`docket team settings`, without a runtime) reads and changes any team by
    // the same rules.
    let db = ctx.db.clone();
    let (legal, again, missing) = tokio::task::spawn_blocking(move || {
        let change = Change {
            redirect_url: Some("https://legal.example/done".into()),
            ..Change::default()
        };
        let legal = admin_update(&db, "legal", change).unwrap();
        let again = admin_read(&db, "LEGAL").unwrap();
        (legal, again, admin_read(&db, "nope").unwrap_err())
    })
    .await
    .unwrap();
    assert_eq!(
        legal.defaults.redirect_url.as_deref(),
        Some("https://legal.example/done")
    );
    assert_eq!(again, legal);
    assert_eq!(missing.code(), "not_found");
}

#[test]
fn the_defaults_fill_only_what_a_request_left_out() {
    let defaults = Defaults {
        signing_order: Some(SigningOrder::Sequential),
        date_format: Some("dd/MM/yyyy".into()),
        time_zone: Some("Europe/Paris".into()),
        redirect_url: Some("https://done.example/".into()),
        language: Some(Lang::De),
        expiration_period: crate::signing::documents::deadline::Period::from_text("3 days")
            .unwrap(),
    };
    let mut meta = Meta::default();
    defaults.fill(&mut meta, Chosen::default());
    assert_eq!(meta.language, Lang::De);
    assert_eq!(
        meta.envelope_expiration_period, defaults.expiration_period,
        "the team's deadline"
    );
    assert_eq!(meta.signing_order, SigningOrder::Sequential);
    assert_eq!(meta.date_format, "dd/MM/yyyy");
    assert_eq!(meta.timezone, "Europe/Paris");
    assert_eq!(meta.redirect_url.as_deref(), Some("https://done.example/"));

    // What the request chose wins, even when it chose the product's default.
    let mut meta = Meta::default();
    defaults.fill(
        &mut meta,
        Chosen {
            timezone: true,
            signing_order: true,
            language: true,
            expiration: true,
            ..Chosen::default()
        },
    );
    assert_eq!(meta.language, Lang::En);
    assert_eq!(meta.envelope_expiration_period, None, "the request's own");
    assert_eq!(meta.timezone, Meta::default().timezone);
    assert_eq!(meta.signing_order, SigningOrder::Parallel);
    assert_eq!(meta.date_format, "dd/MM/yyyy");

    // A team without defaults changes nothing.
    let mut meta = Meta::default();
    Defaults::default().fill(&mut meta, Chosen::default());
    assert_eq!(meta, Meta::default());
    let mut meta = Meta::default();
    defaults.fill(&mut meta, Chosen::ALL);
    assert_eq!(meta, Meta::default());
}

#[tokio::test]
async fn a_teams_rows_take_its_defaults_and_name_it_as_their_sender() {
    let (_tmp, ctx) = setup().await;
    let change = Change {
        time_zone: Some("Europe/Paris".into()),
        ..Change::default()
    };
    update(&ctx, &user(1), "sales", change).await.unwrap();
    let (team_meta, personal_meta, shown) = ctx
        .db
        .read(|c| {
            let team = team_store::require_by_slug(c, "sales")?.id;
            let in_team = Owner::of_row(UserId::new(3), Some(team));
            let personal = Owner::Personal(UserId::new(1));
            let m = Meta::default();
            let shown = (
                sender_shown(c, "Cy", Some(team), Lang::En)?,
                sender_shown(c, "Ada", None, Lang::En)?,
            );
            Ok((
                with_defaults(c, &in_team, &m, Chosen::default())?,
                with_defaults(c, &personal, &m, Chosen::default())?,
                shown,
            ))
        })
        .await
        .unwrap();
    assert_eq!(team_meta.timezone, "Europe/Paris");
    assert_eq!(
        personal_meta,
        Meta::default(),
        "a personal row is unchanged"
    );
    assert_eq!(shown, ("Cy on behalf of Sales".into(), "Ada".into()));

    let named = Change {
        sender_name: Some("Sales Ltd".into()),
        ..Change::default()
    };
    update(&ctx, &user(1), "sales", named).await.unwrap();
    let shown = ctx
        .db
        .read(|c| {
            let team = team_store::require_by_slug(c, "sales")?.id;
            sender_shown(c, "Cy", Some(team), Lang::En)
        })
        .await
        .unwrap();
    assert_eq!(shown, "Cy on behalf of Sales Ltd");
}

/// The same reads and writes on PostgreSQL: typed values and NULLs round-trip, a cleared value
/// is NULL again, and a team's defaults fill a new row's meta.
#[test]
fn on_postgres_a_teams_settings_are_written_read_and_applied() {
    let Some(url) = crate::core::db::testing::postgres_database("team_settings") else {
        return;
    };
    let db = Db::open_postgres(&url, 1, std::time::Duration::from_secs(10), true).unwrap();
    let team = db
        .write_blocking(|c| Ok(team_store::insert(c, "Sales", "sales", 0)?.id))
        .unwrap();
    let set = admin_update(
        &db,
        "sales",
        Change {
            sender_name: Some("Sales Ltd".into()),
            signing_order: Some("SEQUENTIAL".into()),
            date_format: Some("dd.MM.yyyy".into()),
            time_zone: Some("Europe/Paris".into()),
            redirect_url: Some("https://done.example/".into()),
            ..Change::default()
        },
    )
    .unwrap();
    assert_eq!(set.defaults.signing_order, Some(SigningOrder::Sequential));
    assert_eq!(admin_read(&db, "sales").unwrap(), set);
    let cleared = admin_update(
        &db,
        "sales",
        Change {
            redirect_url: Some(" ".into()),
            ..Change::default()
        },
    )
    .unwrap();
    assert_eq!(cleared.defaults.redirect_url, None);
    assert_eq!(cleared.defaults.time_zone.as_deref(), Some("Europe/Paris"));
    let (meta, shown) = db
        .read_blocking(move |c| {
            let owner = Owner::of_row(UserId::new(1), Some(team));
            Ok((
                with_defaults(c, &owner, &Meta::default(), Chosen::default())?,
                sender_shown(c, "Ada", Some(team), Lang::En)?,
            ))
        })
        .unwrap();
    assert_eq!(
        (
            meta.signing_order,
            meta.date_format.as_str(),
            meta.timezone.as_str()
        ),
        (SigningOrder::Sequential, "dd.MM.yyyy", "Europe/Paris")
    );
    assert_eq!(meta.redirect_url, None);
    assert_eq!(shown, "Ada on behalf of Sales Ltd");
}
