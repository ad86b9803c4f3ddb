use super::*;

fn parse(url: &str) -> PgUrl {
    PgUrl::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"))
}

fn pg_mode(url: &PgUrl) -> postgres::config::SslMode {
    url.config.get_ssl_mode()
}

#[test]
fn without_sslmode_tls_is_required_over_a_network_and_preferred_on_loopback() {
    let url = parse("postgres://docket:pw@db.example:5433/docket");
    assert_eq!(url.check, Check::Nothing);
    assert_eq!(pg_mode(&url), postgres::config::SslMode::Require);
    assert_eq!((url.mode, url.mode_given), (SslMode::Require, false));
    for local in [
        "postgres://u@127.0.0.1/d",
        "postgres://u@127.8.9.10:5433/d",
        "postgres://u@localhost/d",
        "postgres://u@LocalHost/d",
        "postgres://u@[::1]:5432/d",
        "postgres://u@/d?host=/run/postgresql",
        "postgres://u@/d?host=%2Ftmp",
        "postgres://u@db.example/d?hostaddr=127.0.0.1",
    ] {
        let url = parse(local);
        assert_eq!(pg_mode(&url), postgres::config::SslMode::Prefer, "{local}");
    }
    for remote in [
        "postgres://u@10.0.0.5/d",
        "postgres://u@[fd00::5]/d",
        "postgres://u@localhost.example.com/d",
        "postgres://u@localhost,db.example/d",
        "postgres://u@localhost/d?hostaddr=192.0.2.7",
    ] {
        let url = parse(remote);
        assert_eq!(
            pg_mode(&url),
            postgres::config::SslMode::Require,
            "{remote}"
        );
        assert_eq!(url.check, Check::Nothing, "{remote}");
    }
    // Plain text over a network only when asked for by name; a root file still checks.
    let url = parse("postgres://u@db.example/d?sslmode=disable");
    assert_eq!(pg_mode(&url), postgres::config::SslMode::Disable);
    let url = parse("postgres://u@db.example/d?sslmode=prefer");
    assert_eq!(pg_mode(&url), postgres::config::SslMode::Prefer);
    let url = parse("postgres://u@db.example/d?sslrootcert=/etc/ca.pem");
    assert_eq!(pg_mode(&url), postgres::config::SslMode::Require);
    assert_eq!(url.check, Check::Chain(Roots::File("/etc/ca.pem".into())));

    let url = parse("postgres://docket:pw@db.example:5433/docket");
    assert_eq!(url.config.get_user(), Some("docket"));
    assert_eq!(url.config.get_password(), Some(&b"pw"[..]));
    assert_eq!(url.config.get_dbname(), Some("docket"));
    assert_eq!(url.config.get_ports(), &[5433]);
}

#[test]
fn the_default_mode_follows_where_the_hosts_are() {
    assert_eq!(default_mode(Reach::Local), SslMode::Prefer);
    assert_eq!(default_mode(Reach::Network), SslMode::Require);
}

#[test]
fn every_link_but_a_checked_or_local_one_is_warned_about() {
    let link = |url: &str, tls| parse(url).link(tls);
    assert_eq!(
        link("postgres://u@/d?host=/run/postgresql", false),
        Link::Socket
    );
    let full = "postgres://u@db.example/d?sslmode=verify-full";
    assert_eq!(link(full, true), Link::Verified);
    assert_eq!(link(full, true).warning(), None);
    let ca = "postgres://u@h/d?sslmode=require&sslrootcert=/ca.pem";
    assert_eq!(link(ca, true), Link::Verified);

    // Downgraded: prefer on loopback, the server (or what sits in between) said no.
    let plain = link("postgres://u@127.0.0.1/d", false);
    let warning = plain.warning().unwrap();
    assert!(
        warning.contains("not encrypted")
            && warning.contains("sslmode=prefer (the default on loopback)"),
        "{warning}"
    );
    let warning = link("postgres://u@h/d?sslmode=prefer", false)
        .warning()
        .unwrap();
    assert!(
        warning.contains("with sslmode=prefer the server"),
        "{warning}"
    );
    let warning = link("postgres://u@h/d?sslmode=disable", false)
        .warning()
        .unwrap();
    assert!(warning.contains("(sslmode=disable)"), "{warning}");

    // Encrypted to whoever answers.
    for url in [
        "postgres://u@db.example/d",
        "postgres://u@127.0.0.1/d?sslmode=require",
    ] {
        let warning = link(url, true).warning().unwrap();
        assert!(
            warning.contains("certificate is not checked") && warning.contains("verify-full"),
            "{warning}"
        );
    }
    assert!(
        !link("postgres://u:s3cret@h/d", false)
            .warning()
            .unwrap()
            .contains("s3cret")
    );
}

#[test]
fn modes_read_as_libpq_reads_them() {
    let url = parse("postgres://h/d?sslmode=disable");
    assert_eq!(url.check, Check::Nothing);
    assert_eq!(pg_mode(&url), postgres::config::SslMode::Disable);

    let url = parse("postgres://h/d?sslmode=require");
    assert_eq!(url.check, Check::Nothing);
    assert_eq!(pg_mode(&url), postgres::config::SslMode::Require);

    let url = parse("postgres://h/d?sslmode=require&sslrootcert=/etc/ca.pem");
    assert_eq!(url.check, Check::Chain(Roots::File("/etc/ca.pem".into())));

    let url = parse("postgres://h/d?sslmode=verify-ca");
    assert_eq!(url.check, Check::Chain(Roots::Public));
    assert_eq!(pg_mode(&url), postgres::config::SslMode::Require);

    let url = parse("postgres://h/d?sslrootcert=%2Fsrv%2Fmy%20ca.pem&sslmode=verify-full");
    let roots = Roots::File("/srv/my ca.pem".into());
    assert_eq!(url.check, Check::ChainAndName(roots));

    let url = parse("postgres://h/d?sslmode=verify-full&sslrootcert=system");
    assert_eq!(url.check, Check::ChainAndName(Roots::Public));
}

#[test]
fn other_parameters_still_reach_the_postgres_config() {
    let url =
        parse("postgresql://u@h/d?application_name=docket&sslmode=verify-full&connect_timeout=7");
    assert_eq!(url.config.get_application_name(), Some("docket"));
    assert_eq!(
        url.config.get_connect_timeout(),
        Some(&std::time::Duration::from_secs(7))
    );
    // The last sslmode counts, as in libpq.
    let url = parse("postgres://h/d?sslmode=disable&sslmode=require");
    assert_eq!(pg_mode(&url), postgres::config::SslMode::Require);
}

#[test]
fn unknown_modes_and_client_certificates_are_refused_plainly() {
    let err = PgUrl::parse("postgres://u:s3cret@h/d?sslmode=verify")
        .err()
        .unwrap();
    assert!(err.contains("sslmode=verify is not known"), "{err}");
    assert!(!err.contains("s3cret"), "{err}");
    let err = PgUrl::parse("postgres://h/d?sslmode=allow").err().unwrap();
    assert!(err.contains("sslmode=allow"), "{err}");
    let err = PgUrl::parse("postgres://h/d?sslcert=/c.pem").err().unwrap();
    assert!(err.contains("client certificates"), "{err}");
    let err = PgUrl::parse("postgres://h/d?nonsense=1").err().unwrap();
    assert!(err.contains("nonsense"), "{err}");
}

#[test]
fn a_missing_or_empty_root_file_is_an_error_before_any_connection() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.pem");
    let url = parse(&format!(
        "postgres://h/d?sslmode=verify-full&sslrootcert={}",
        missing.display()
    ));
    let err = url.connector().err().unwrap();
    assert!(err.starts_with("sslrootcert "), "{err}");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    let url = parse(&format!(
        "postgres://h/d?sslmode=verify-ca&sslrootcert={}",
        empty.display()
    ));
    let err = url.connector().err().unwrap();
    assert!(err.contains("no CA certificate"), "{err}");
    assert!(
        parse("postgres://h/d?sslmode=verify-full")
            .connector()
            .is_ok()
    );
    assert!(parse("postgres://h/d").connector().is_ok());
}
