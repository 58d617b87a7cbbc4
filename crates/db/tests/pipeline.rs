//! The request pool's one-`Sync` batches against a real PostgreSQL: each
//! statement's answer, errors that skip the rest of a batch, statements
//! that fail to prepare, parameters, and connections given up mid-batch.

use std::time::Duration;

use plinth_db::pipeline::{Pooled, Reply, TxStatus, WireError};
use plinth_db::testing::TestDb;
use plinth_db::{Database, PoolSettings, platform_migrations};
use postgres_types::{ToSql, Type};

async fn test_db() -> TestDb {
    let test = TestDb::new(&[platform_migrations()]).await;
    sqlx::raw_sql(
        "create table public.items (id int primary key, name text);
         grant select, insert on public.items to anon;",
    )
    .execute(&test.db.owner)
    .await
    .unwrap();
    test
}

const NONE: &[&(dyn ToSql + Sync)] = &[];

fn code(error: &Option<WireError>) -> Option<&str> {
    error
        .as_ref()
        .and_then(|e| e.as_db_error())
        .map(|e| e.code.as_str())
}

/// Rows of `public.items`, as the owner sees them.
async fn items(test: &TestDb) -> i64 {
    sqlx::query_scalar("select count(*) from public.items")
        .fetch_one(&test.db.owner)
        .await
        .unwrap()
}

async fn prepared(conn: &mut Pooled) -> i64 {
    let mut batch = conn.batch();
    batch.push(
        "select count(*)::text from pg_prepared_statements",
        &[],
        NONE,
    );
    let (replies, error) = batch.run().await;
    assert!(error.is_none(), "{error:?}");
    replies[0].rows()[0].int(0).unwrap()
}

async fn backend_pid(conn: &mut Pooled) -> String {
    let mut batch = conn.batch();
    batch.push("select pg_backend_pid()::text", &[], NONE);
    let (replies, error) = batch.run().await;
    assert!(error.is_none(), "{error:?}");
    replies[0].rows()[0].text(0).unwrap().to_owned()
}

#[tokio::test]
async fn a_batch_is_one_transaction_with_an_answer_per_statement() {
    let test = test_db().await;
    let mut conn = Pooled::get(&test.db.pipelined).await.unwrap();
    let id: i64 = 7;
    let name = "seven".to_owned();
    let mut batch = conn.batch();
    batch.push("BEGIN", &[], NONE);
    batch.push("select set_config('role', 'anon', true)", &[], NONE);
    batch.push(
        "insert into public.items values ($1::int8::int, $2)",
        &[Type::INT8, Type::TEXT],
        &[&id, &name],
    );
    batch.push(
        "select current_user::text, name from public.items where id = $1::int8::int",
        &[Type::INT8],
        &[&id],
    );
    batch.push("COMMIT", &[], NONE);
    let (replies, error) = batch.run().await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(replies.len(), 5);
    assert_eq!(replies[2].affected(), 1, "INSERT 0 1");
    let row = &replies[3].rows()[0];
    assert_eq!((row.text(0), row.text(1)), (Some("anon"), Some("seven")));
    assert_eq!(conn.status(), TxStatus::Idle);
    // The role was the transaction's own.
    let mut batch = conn.batch();
    batch.push("select current_user::text", &[], NONE);
    let (replies, _) = batch.run().await;
    assert_eq!(replies[0].rows()[0].text(0), Some("authenticator"));
    drop(conn);
    assert_eq!(items(&test).await, 1, "committed");
}

#[tokio::test]
async fn a_failed_statement_skips_the_rest_and_its_transaction_rolls_back() {
    let test = test_db().await;
    let mut conn = Pooled::get(&test.db.pipelined).await.unwrap();
    let pid = backend_pid(&mut conn).await;
    let mut batch = conn.batch();
    batch.push("BEGIN", &[], NONE);
    batch.push("select set_config('role', 'anon', true)", &[], NONE);
    batch.push("insert into public.items values (1, 'one')", &[], NONE);
    batch.push("select 1 / 0", &[], NONE);
    batch.push("insert into public.items values (2, 'two')", &[], NONE);
    batch.push("COMMIT", &[], NONE);
    let (replies, error) = batch.run().await;
    assert_eq!(code(&error), Some("22012"), "{error:?}");
    assert_eq!(replies.len(), 6);
    assert!(matches!(replies[2], Reply::Rows(_, 1)));
    assert!(replies[3..].iter().all(|r| matches!(r, Reply::Skipped)));
    assert_eq!(conn.status(), TxStatus::Failed, "COMMIT was skipped");
    conn.settle().await.unwrap();
    assert_eq!(conn.status(), TxStatus::Idle);
    assert_eq!(backend_pid(&mut conn).await, pid, "the same connection");
    drop(conn);
    assert_eq!(
        items(&test).await,
        0,
        "nothing of the failed batch was committed"
    );
}

#[tokio::test]
async fn statements_are_prepared_once_and_one_that_fails_to_prepare_is_not_kept() {
    let test = test_db().await;
    let mut conn = Pooled::get(&test.db.pipelined).await.unwrap();
    let first = prepared(&mut conn).await;
    for _ in 0..3 {
        let mut batch = conn.batch();
        batch.push(
            "select relname::text from pg_class where oid = 'pg_class'::regclass",
            &[],
            NONE,
        );
        let (_, error) = batch.run().await;
        assert!(error.is_none(), "{error:?}");
    }
    assert_eq!(prepared(&mut conn).await, first + 1, "prepared once");
    assert_eq!(conn.prepared() as i64, first + 1);
    // A statement that fails while it is prepared: the same error each
    // time (not "prepared statement does not exist"), and the connection
    // goes on.
    for _ in 0..2 {
        let mut batch = conn.batch();
        batch.push("select no_such_column from public.items", &[], NONE);
        let (_, error) = batch.run().await;
        assert_eq!(code(&error), Some("42703"), "{error:?}");
        assert_eq!(conn.status(), TxStatus::Idle, "the implicit block ended");
    }
    assert_eq!(prepared(&mut conn).await, first + 1);
    // A new statement behind a failed one in the same batch was skipped,
    // so it is prepared again next time.
    let mut batch = conn.batch();
    batch.push("select 1 / 0", &[], NONE);
    batch.push("select 'after'", &[], NONE);
    let (_, error) = batch.run().await;
    assert_eq!(code(&error), Some("22012"));
    let mut batch = conn.batch();
    batch.push("select 'after'", &[], NONE);
    let (replies, error) = batch.run().await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(replies[0].rows()[0].text(0), Some("after"));
}

#[tokio::test]
async fn parameters_travel_as_their_types_and_results_as_text() {
    let test = test_db().await;
    let mut conn = Pooled::get(&test.db.pipelined).await.unwrap();
    let text = "it's \"quoted\", ünïcode; drop table x --".to_owned();
    let number: i64 = -9_007_199_254_740_993;
    let list = vec!["a,b".to_owned(), "{c}".to_owned(), String::new()];
    let null: Option<String> = None;
    let mut batch = conn.batch();
    batch.push(
        "select $1, $2::text, array_length($3, 1)::text, $3[2], $4 is null, null::text",
        &[Type::TEXT, Type::INT8, Type::TEXT_ARRAY, Type::TEXT],
        &[&text, &number, &list, &null],
    );
    let (replies, error) = batch.run().await;
    assert!(error.is_none(), "{error:?}");
    let row = &replies[0].rows()[0];
    assert_eq!(row.text(0), Some(text.as_str()));
    assert_eq!(row.int(1), Some(number));
    assert_eq!(row.text(2), Some("3"));
    assert_eq!(row.text(3), Some("{c}"));
    assert_eq!(row.text(4), Some("t"));
    assert_eq!(row.text(5), None, "NULL");
    // A count of types that does not match the values is refused before
    // anything is sent.
    let mut batch = conn.batch();
    batch.push("select $1", &[Type::TEXT, Type::TEXT], &[&text]);
    let (_, error) = batch.run().await;
    assert!(matches!(error, Some(WireError::Encode(_))), "{error:?}");
    assert!(
        !backend_pid(&mut conn).await.is_empty(),
        "the connection goes on"
    );
}

#[tokio::test]
async fn a_connection_given_up_mid_transaction_is_rolled_back_and_kept() {
    let test = test_db().await;
    // A pool of one: the next request waits for the connection given up.
    let settings = PoolSettings {
        max_connections: 1,
        ..PoolSettings::default()
    };
    let db = Database::connect(test.options.clone(), &settings)
        .await
        .unwrap();
    let pool = &db.pipelined;
    let mut conn = Pooled::get(pool).await.unwrap();
    let pid = backend_pid(&mut conn).await;
    // The request goes away while the database sleeps inside the
    // transaction, after its insert.
    let given_up = tokio::time::timeout(Duration::from_millis(200), async {
        let mut batch = conn.batch();
        batch.push("BEGIN", &[], NONE);
        batch.push("select set_config('role', 'anon', true)", &[], NONE);
        batch.push("insert into public.items values (3, 'three')", &[], NONE);
        batch.push("select pg_sleep(1)", &[], NONE);
        batch.run().await
    })
    .await;
    assert!(given_up.is_err(), "timed out");
    drop(conn);
    // Every connection the pool hands out next is clean: the same one,
    // once its transaction was rolled back.
    let mut conn = Pooled::get(pool).await.unwrap();
    assert_eq!(conn.status(), TxStatus::Idle);
    assert_eq!(items(&test).await, 0, "rolled back");
    assert_eq!(backend_pid(&mut conn).await, pid, "the connection was kept");
    let idle_in_transaction: i64 = sqlx::query_scalar(
        "select count(*) from pg_stat_activity \
         where datname = current_database() and state like 'idle in transaction%'",
    )
    .fetch_one(&test.db.owner)
    .await
    .unwrap();
    assert_eq!(idle_in_transaction, 0);
}
