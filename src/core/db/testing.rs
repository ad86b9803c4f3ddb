//! For unit tests that need PostgreSQL: a new database on the test cluster that
//! `DOCKET_TEST_POSTGRES` names (tests/pg/postgres.sh), or `None` with a notice without one.

/// The URL of a new, empty database named after `prefix` on the test cluster.
pub fn postgres_database(prefix: &str) -> Option<String> {
    let Ok(admin) = std::env::var("DOCKET_TEST_POSTGRES") else {
        eprintln!("skipped on PostgreSQL: DOCKET_TEST_POSTGRES is not set");
        return None;
    };
    let name = format!(
        "docket_{prefix}_{}",
        crate::core::crypto::random_base62(12).to_lowercase()
    );
    // The synchronous client runs a runtime of its own: keep it off any async test's thread.
    let create = format!("CREATE DATABASE {name}");
    let admin_url = admin.clone();
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&admin_url, postgres::NoTls)
            .expect("the test PostgreSQL cluster answers");
        client
            .batch_execute(&create)
            .expect("the database is created");
    })
    .join()
    .unwrap();
    let mut url = url::Url::parse(&admin).expect("DOCKET_TEST_POSTGRES is a URL");
    url.set_path(&name);
    Some(url.to_string())
}
