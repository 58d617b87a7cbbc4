//! The marketplace's access rules, through the REST gateway with real JWTs:
//! every table in `public` × {anon, the row's owner, another signed-in user,
//! an admin, the service role} × {select, insert, update, delete}.
//!
//! Every request carries `Prefer: tx=rollback`, so one check never changes
//! the rows the next one sees.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::marketplace_support::*;

#[derive(Clone, Copy, Debug)]
enum Op {
    Select,
    Insert,
    Update,
    Delete,
}
use Op::*;

/// The matrix. Columns of the expectation: anon, owner, other user, admin,
/// service role; `Y` allowed, `-` denied.
///
/// `templates#unpublished` is a template of the owner that is not published;
/// `templates#counters` writes a counter (downloads_count) instead of content.
/// `template_upvotes#own` and `template_ratings#own` are votes of the owner on
/// their own template (nobody votes for their own work; the update and delete
/// act on such a rating left from before that rule).
/// For `admins` the row belongs to another admin (so "admin" is an admin who
/// is not its owner), and the insert is the owner making themself an admin.
const MATRIX: &[(&str, Op, &str)] = &[
    //                                          N O X A S
    ("profiles", Select, /*                  */ "YYYYY"),
    ("profiles", Insert, /*                  */ "----Y"),
    ("profiles", Update, /*                  */ "-Y--Y"),
    ("profiles", Delete, /*                  */ "----Y"),
    ("categories", Select, /*                */ "YYYYY"),
    ("categories", Insert, /*                */ "----Y"),
    ("categories", Update, /*                */ "----Y"),
    ("categories", Delete, /*                */ "----Y"),
    ("templates", Select, /*                 */ "YYYYY"),
    ("templates", Insert, /*                 */ "----Y"),
    ("templates", Update, /*                 */ "-Y--Y"),
    ("templates", Delete, /*                 */ "----Y"),
    ("templates#unpublished", Select, /*     */ "-Y-YY"),
    ("templates#unpublished", Update, /*     */ "-Y--Y"),
    ("templates#unpublished", Delete, /*     */ "----Y"),
    ("templates#counters", Update, /*        */ "----Y"),
    ("templates_draft", Select, /*           */ "-Y--Y"),
    ("templates_draft", Insert, /*           */ "-Y--Y"),
    ("templates_draft", Update, /*           */ "-Y--Y"),
    ("templates_draft", Delete, /*           */ "-Y--Y"),
    ("templates_pending_approval", Select, /**/ "-Y-YY"),
    ("templates_pending_approval", Insert, /**/ "-Y--Y"),
    ("templates_pending_approval", Update, /**/ "---YY"),
    ("templates_pending_approval", Delete, /**/ "-Y-YY"),
    ("templates_rejected", Select, /*        */ "-Y-YY"),
    ("templates_rejected", Insert, /*        */ "---YY"),
    ("templates_rejected", Update, /*        */ "----Y"),
    ("templates_rejected", Delete, /*        */ "-Y--Y"),
    ("followers", Select, /*                 */ "YYYYY"),
    ("followers", Insert, /*                 */ "-Y--Y"),
    ("followers", Update, /*                 */ "----Y"),
    ("followers", Delete, /*                 */ "-Y--Y"),
    ("template_upvotes", Select, /*          */ "YYYYY"),
    ("template_upvotes", Insert, /*          */ "-Y--Y"),
    ("template_upvotes", Update, /*          */ "----Y"),
    ("template_upvotes", Delete, /*          */ "-Y--Y"),
    ("template_upvotes#own", Insert, /*      */ "----Y"),
    ("wishlist", Select, /*                  */ "-Y--Y"),
    ("wishlist", Insert, /*                  */ "-Y--Y"),
    ("wishlist", Update, /*                  */ "----Y"),
    ("wishlist", Delete, /*                  */ "-Y--Y"),
    ("template_ratings", Select, /*          */ "YYYYY"),
    ("template_ratings", Insert, /*          */ "-Y--Y"),
    ("template_ratings", Update, /*          */ "-Y--Y"),
    ("template_ratings", Delete, /*          */ "-Y--Y"),
    ("template_ratings#own", Insert, /*      */ "----Y"),
    ("template_ratings#own", Update, /*      */ "----Y"),
    ("template_ratings#own", Delete, /*      */ "-Y--Y"),
    ("orders", Select, /*                    */ "-Y--Y"),
    ("orders", Insert, /*                    */ "----Y"),
    ("orders", Update, /*                    */ "----Y"),
    ("orders", Delete, /*                    */ "----Y"),
    ("admins", Select, /*                    */ "-Y--Y"),
    ("admins", Insert, /*                    */ "----Y"),
    ("admins", Update, /*                    */ "----Y"),
    ("admins", Delete, /*                    */ "----Y"),
    ("newsletter_subscribers", Select, /*    */ "----Y"),
    ("newsletter_subscribers", Insert, /*    */ "----Y"),
    ("newsletter_subscribers", Update, /*    */ "----Y"),
    ("newsletter_subscribers", Delete, /*    */ "----Y"),
    ("template_views", Select, /*            */ "----Y"),
    ("template_views", Insert, /*            */ "----Y"),
    ("template_views", Update, /*            */ "----Y"),
    ("template_views", Delete, /*            */ "----Y"),
    ("paid_template_links", Select, /*       */ "-Y-YY"),
    ("paid_template_links", Insert, /*       */ "----Y"),
    ("paid_template_links", Update, /*       */ "----Y"),
    ("paid_template_links", Delete, /*       */ "----Y"),
    ("payment_accounts", Select, /*          */ "-Y--Y"),
    ("payment_accounts", Insert, /*          */ "----Y"),
    ("payment_accounts", Update, /*          */ "----Y"),
    ("payment_accounts", Delete, /*          */ "----Y"),
    ("template_versions", Select, /*         */ "YYYYY"),
    ("template_versions", Insert, /*         */ "----Y"),
    ("template_versions", Update, /*         */ "----Y"),
    ("template_versions", Delete, /*         */ "----Y"),
];

/// The rows the matrix acts on.
struct Fixture {
    owner: Uuid,
    other: Uuid,
    admin: Uuid,
    /// A second admin, owner of the `admins` row under test.
    admin2: Uuid,
    admin2_row: Uuid,
    /// An auth user whose profile is gone (the profile insert's subject).
    fresh: Uuid,
    /// A third party: creator of the templates the owner upvotes, rates, buys.
    creator: Uuid,
    productivity: Uuid,
    /// A category no template uses.
    spare_category: Uuid,
    /// The owner's published and unpublished templates.
    t_own: Uuid,
    t_unpublished: Uuid,
    /// The creator's templates: one the owner already upvoted/wishlisted/rated/bought, one not.
    t_used: Uuid,
    t_new: Uuid,
    /// The owner's paid template, whose link is kept apart.
    t_paid: Uuid,
    draft: Uuid,
    pending: Uuid,
    rejected: Uuid,
    order: Uuid,
    subscriber: Uuid,
    view: i64,
    /// A version of the owner's published template (add_template_version writes them).
    version: Uuid,
}

async fn fixture(app: &TestApp) -> Fixture {
    let pool = owner_pool(app);
    let owner = create_user(app, "owner@test.dev", "Owner").await;
    let other = create_user(app, "other@test.dev", "Other").await;
    let admin = create_user(app, "admin@test.dev", "Admin").await;
    let admin2 = create_user(app, "admin2@test.dev", "Admin Two").await;
    let fresh = create_user(app, "fresh@test.dev", "Fresh").await;
    let creator = create_user(app, "creator@test.dev", "Creator").await;
    make_admin(app, admin).await;
    let admin2_row = make_admin(app, admin2).await;
    sqlx::query("delete from public.profiles where id = $1")
        .bind(fresh)
        .execute(pool)
        .await
        .unwrap();
    let productivity = category_id(app, "productivity").await;
    let spare_category: Uuid = sqlx::query_scalar(
        "insert into public.categories (name, slug, description) values ('Spare', 'spare', 'unused') returning id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    let t_own = published_template(app, owner, "Own Template", productivity, 0.0).await;
    let t_unpublished = published_template(app, owner, "Hidden Template", productivity, 0.0).await;
    sqlx::query(
        "update public.templates set is_published = false, status = 'unpublished' where id = $1",
    )
    .bind(t_unpublished)
    .execute(pool)
    .await
    .unwrap();
    let t_used = published_template(app, creator, "Used Template", productivity, 5.0).await;
    let t_new = published_template(app, creator, "New Template", productivity, 0.0).await;
    let t_paid = published_template(app, owner, "Paid Template", productivity, 9.0).await;
    sqlx::query(
        "update public.templates set template_url = 'https://workspace.test/paid',
                template_file_url = 'template-files/' || user_id || '/files/paid.zip' where id = $1",
    )
    .bind(t_paid)
    .execute(pool)
    .await
    .unwrap();
    let draft: Uuid = sqlx::query_scalar(
        "insert into public.templates_draft (creator_id, title) values ($1, 'Owner draft') returning id",
    )
    .bind(owner)
    .fetch_one(pool)
    .await
    .unwrap();
    let pending: Uuid = sqlx::query_scalar(
        "insert into public.templates_pending_approval (creator_id, title, description, category_id)
         values ($1, 'Owner pending', 'Waiting', $2) returning id",
    )
    .bind(owner)
    .bind(productivity)
    .fetch_one(pool)
    .await
    .unwrap();
    let rejected: Uuid = sqlx::query_scalar(
        "insert into public.templates_rejected (creator_id, title, rejection_comment)
         values ($1, 'Owner rejected', 'Too short') returning id",
    )
    .bind(owner)
    .fetch_one(pool)
    .await
    .unwrap();
    for sql in [
        "insert into public.followers (follower_id, following_id) values ($1, $2)",
        "insert into public.template_upvotes (user_id, template_id) values ($1, $3)",
        "insert into public.wishlist (user_id, template_id) values ($1, $3)",
        "insert into public.template_ratings (user_id, template_id, rating) values ($1, $3, 4)",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(owner)
            .bind(creator)
            .bind(t_used)
            .execute(pool)
            .await
            .unwrap();
    }
    // From before the rule: a rating of the owner's own template. And the
    // owner's payment account.
    sqlx::query(
        "insert into public.template_ratings (user_id, template_id, rating) values ($1, $2, 3)",
    )
    .bind(owner)
    .bind(t_own)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query("insert into public.payment_accounts (user_id, stripe_account_id) values ($1, 'acct_owner')")
        .bind(owner)
        .execute(pool)
        .await
        .unwrap();
    let order: Uuid = sqlx::query_scalar(
        "insert into public.orders (product_id, buyer_id, buyer_email, price_in_cents, payment_status)
         values ($1, $2, 'owner@test.dev', 500, 'paid') returning id",
    )
    .bind(t_used)
    .bind(owner)
    .fetch_one(pool)
    .await
    .unwrap();
    let subscriber: Uuid = sqlx::query_scalar(
        "insert into public.newsletter_subscribers (email, name) values ('reader@test.dev', 'Reader') returning id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    let view: i64 = sqlx::query_scalar(
        "insert into public.template_views (template_id, viewer_hash, user_id) values ($1, 'hash', $2) returning id",
    )
    .bind(t_own)
    .bind(owner)
    .fetch_one(pool)
    .await
    .unwrap();
    let version: Uuid = sqlx::query_scalar(
        "insert into public.template_versions (template_id, version, changelog, file_changed)
         values ($1, 2, 'Fixed the file', true) returning id",
    )
    .bind(t_own)
    .fetch_one(pool)
    .await
    .unwrap();
    Fixture {
        owner,
        other,
        admin,
        admin2,
        admin2_row,
        fresh,
        creator,
        productivity,
        spare_category,
        t_own,
        t_unpublished,
        t_used,
        t_new,
        t_paid,
        draft,
        pending,
        rejected,
        order,
        subscriber,
        view,
        version,
    }
}

/// The request of one matrix cell: the filter naming the row under test (for
/// select, update, delete), the body (insert, update), and whose row it is.
struct Target {
    filter: String,
    insert: Value,
    update: Value,
    owner: Uuid,
}

fn target(table: &str, f: &Fixture, op: Op) -> Target {
    let o = f.owner;
    let when = "2020-01-01T00:00:00+00:00";
    let (filter, insert, update) = match table {
        "profiles" => (
            format!("id=eq.{o}"),
            json!({"id": f.fresh, "display_name": "Fresh"}),
            json!({"bio": "changed"}),
        ),
        "categories" => (
            format!("id=eq.{}", f.spare_category),
            json!({"name": "Newer", "slug": "newer", "description": "new"}),
            json!({"description": "changed"}),
        ),
        "templates" | "templates#counters" => (
            format!("id=eq.{}", f.t_own),
            json!({"user_id": o, "title": "Inserted", "price": 0, "price_in_cents": 0, "category_id": f.productivity}),
            if table == "templates" {
                json!({"title": "Changed title"})
            } else {
                json!({"downloads_count": 999})
            },
        ),
        "templates#unpublished" => (
            format!("id=eq.{}", f.t_unpublished),
            Value::Null,
            json!({"title": "Changed title"}),
        ),
        "templates_draft" => (
            format!("id=eq.{}", f.draft),
            json!({"creator_id": o, "title": "Another draft"}),
            json!({"title": "Changed draft"}),
        ),
        "templates_pending_approval" => (
            format!("id=eq.{}", f.pending),
            json!({"creator_id": o, "title": "Another pending", "description": "d",
                   "category_id": f.productivity, "status": "Pending Approval"}),
            json!({"rejection_comment": "A note"}),
        ),
        "templates_rejected" => (
            format!("id=eq.{}", f.rejected),
            json!({"creator_id": o, "title": "Filed rejection", "rejection_comment": "No"}),
            json!({"title": "Changed"}),
        ),
        "followers" => (
            format!("follower_id=eq.{o}&following_id=eq.{}", f.creator),
            json!({"follower_id": o, "following_id": f.other}),
            json!({"created_at": when}),
        ),
        "template_upvotes" | "wishlist" => (
            format!("user_id=eq.{o}&template_id=eq.{}", f.t_used),
            json!({"user_id": o, "template_id": f.t_new}),
            json!({"created_at": when}),
        ),
        "template_ratings" => (
            format!("user_id=eq.{o}&template_id=eq.{}", f.t_used),
            json!({"user_id": o, "template_id": f.t_new, "rating": 5}),
            json!({"rating": 2}),
        ),
        "template_upvotes#own" => (
            format!("user_id=eq.{o}&template_id=eq.{}", f.t_own),
            json!({"user_id": o, "template_id": f.t_own}),
            Value::Null,
        ),
        "template_ratings#own" => (
            format!("user_id=eq.{o}&template_id=eq.{}", f.t_own),
            json!({"user_id": o, "template_id": f.t_paid, "rating": 5}),
            json!({"rating": 5}),
        ),
        "payment_accounts" => (
            format!("user_id=eq.{o}"),
            json!({"user_id": f.other, "stripe_account_id": "acct_other"}),
            json!({"stripe_account_id": "acct_changed"}),
        ),
        "orders" => (
            format!("id=eq.{}", f.order),
            json!({"product_id": f.t_new, "buyer_id": o, "buyer_email": "owner@test.dev", "payment_status": "free"}),
            json!({"payment_status": "failed"}),
        ),
        "admins" => (
            format!("id=eq.{}", f.admin2_row),
            json!({"user_id": o}),
            json!({"created_at": when}),
        ),
        "newsletter_subscribers" => (
            format!("id=eq.{}", f.subscriber),
            json!({"email": "new@test.dev", "name": "New"}),
            json!({"name": "Changed"}),
        ),
        "template_views" => (
            format!("id=eq.{}", f.view),
            json!({"template_id": f.t_own, "viewer_hash": "other-hash", "user_id": o}),
            json!({"viewer_hash": "changed"}),
        ),
        "paid_template_links" => (
            format!("template_id=eq.{}", f.t_paid),
            json!({"template_id": f.t_own, "template_url": "https://workspace.test/own"}),
            json!({"template_url": "https://workspace.test/changed"}),
        ),
        "template_versions" => (
            format!("id=eq.{}", f.version),
            json!({"template_id": f.t_own, "version": 3, "changelog": "Inserted"}),
            json!({"changelog": "Changed"}),
        ),
        other => panic!("no fixture for table {other}"),
    };
    let owner = match (table, op) {
        ("profiles", Insert) => f.fresh,
        ("admins", Insert) => o,
        ("admins", _) => f.admin2,
        _ => o,
    };
    Target {
        filter,
        insert,
        update,
        owner,
    }
}

/// Runs one cell; Ok(allowed) or Err(description of an answer that is
/// neither an allowance nor a denial).
async fn attempt(
    app: &TestApp,
    table: &str,
    op: Op,
    t: &Target,
    actor: Actor,
) -> Result<bool, String> {
    let name = table.split('#').next().unwrap();
    let prefer = "return=representation, tx=rollback";
    let answer = match op {
        Select => {
            rest(
                app,
                actor,
                Method::GET,
                &format!("{name}?{}", t.filter),
                None,
                prefer,
            )
            .await
        }
        Insert => {
            rest(
                app,
                actor,
                Method::POST,
                name,
                Some(t.insert.clone()),
                prefer,
            )
            .await
        }
        Update => {
            rest(
                app,
                actor,
                Method::PATCH,
                &format!("{name}?{}", t.filter),
                Some(t.update.clone()),
                prefer,
            )
            .await
        }
        Delete => {
            rest(
                app,
                actor,
                Method::DELETE,
                &format!("{name}?{}", t.filter),
                None,
                prefer,
            )
            .await
        }
    };
    let status = answer.status;
    if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
        return Ok(false);
    }
    let unexpected = || Err(format!("{status} {}", answer.body));
    let Some(rows) = answer.body.as_array() else {
        return unexpected();
    };
    match (op, status, rows.len()) {
        (Insert, StatusCode::CREATED, 1) => Ok(true),
        (Insert, _, _) => unexpected(),
        (_, StatusCode::OK, 1) => Ok(true),
        (_, StatusCode::OK, 0) => Ok(false),
        _ => unexpected(),
    }
}

#[tokio::test]
async fn every_table_answers_every_actor_as_the_policies_say() {
    let app = spawn_marketplace().await;
    let f = fixture(&app).await;
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for &(table, op, expected) in MATRIX {
        assert_eq!(expected.len(), 5, "{table} {op:?}");
        let t = target(table, &f, op);
        let actors = [
            Actor::Anon,
            Actor::User(t.owner),
            Actor::User(f.other),
            Actor::User(f.admin),
            Actor::Service,
        ];
        let mut got = String::new();
        for (actor, want) in actors.into_iter().zip(expected.chars()) {
            match attempt(&app, table, op, &t, actor).await {
                Ok(allowed) => {
                    got.push(if allowed { 'Y' } else { '-' });
                    if allowed != (want == 'Y') {
                        failures.push(format!(
                            "{table} {op:?} as {actor:?}: expected {}, was {}",
                            if want == 'Y' { "allowed" } else { "denied" },
                            if allowed { "allowed" } else { "denied" }
                        ));
                    }
                }
                Err(answer) => {
                    got.push('!');
                    failures.push(format!(
                        "{table} {op:?} as {actor:?}: fixture bug, answer {answer}"
                    ));
                }
            }
        }
        report.push(format!("{table:32} {op:?}\texpected {expected} got {got}"));
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "policy matrix:\n{}\n\nmismatches:\n{}",
        report.join("\n"),
        failures.join("\n")
    );

    // Every check rolled back: the fixture rows are all still there, unchanged.
    let pool = owner_pool(&app);
    let (bio, title, subscribers): (Option<String>, String, i64) = sqlx::query_as(
        "select (select bio from public.profiles where id = $1), (select title from public.templates where id = $2),
                (select count(*) from public.newsletter_subscribers)",
    )
    .bind(f.owner)
    .bind(f.t_own)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        (bio, title.as_str(), subscribers),
        (None, "Own Template", 1)
    );
}

#[tokio::test]
async fn the_matrix_covers_every_table_in_public() {
    let app = spawn_marketplace().await;
    let tables: BTreeSet<String> =
        sqlx::query_scalar("select tablename::text from pg_tables where schemaname = 'public'")
            .fetch_all(owner_pool(&app))
            .await
            .unwrap()
            .into_iter()
            .collect();
    let covered: BTreeSet<String> = MATRIX
        .iter()
        .map(|(t, _, _)| t.split('#').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        tables, covered,
        "tables in public vs tables in the policy matrix"
    );
    for table in &covered {
        for op in ["Select", "Insert", "Update", "Delete"] {
            assert!(
                MATRIX
                    .iter()
                    .any(|(t, o, _)| t == table && format!("{o:?}") == op),
                "{table} has no {op} row in the matrix"
            );
        }
    }
}

#[tokio::test]
async fn every_table_in_public_has_row_level_security() {
    let app = spawn_marketplace().await;
    let without: Vec<String> = sqlx::query_scalar(
        "select tablename::text from pg_tables where schemaname = 'public' and not rowsecurity order by 1",
    )
    .fetch_all(owner_pool(&app))
    .await
    .unwrap();
    assert!(
        without.is_empty(),
        "tables in public without row-level security: {without:?}"
    );
    let count: i64 =
        sqlx::query_scalar("select count(*) from pg_tables where schemaname = 'public'")
            .fetch_one(owner_pool(&app))
            .await
            .unwrap();
    assert_eq!(count, 17, "the marketplace's 17 tables");
}

#[tokio::test]
async fn no_one_learns_who_else_is_an_admin() {
    let app = spawn_marketplace().await;
    let user = create_user(&app, "user@test.dev", "User").await;
    let admin = create_user(&app, "admin@test.dev", "Admin").await;
    make_admin(&app, admin).await;
    // A user learns whether they themself are an admin, as the app asks.
    let own = rows(
        &app,
        Actor::User(admin),
        &format!("admins?select=user_id&user_id=eq.{admin}"),
    )
    .await;
    assert_eq!(own.len(), 1);
    let own = rows(
        &app,
        Actor::User(user),
        &format!("admins?select=user_id&user_id=eq.{user}"),
    )
    .await;
    assert!(own.is_empty());
    // Nobody else's row, neither through the table nor through is_admin.
    assert!(
        rows(
            &app,
            Actor::User(user),
            &format!("admins?user_id=eq.{admin}")
        )
        .await
        .is_empty()
    );
    assert!(rows(&app, Actor::Anon, "admins").await.is_empty());
    for actor in [Actor::Anon, Actor::User(user)] {
        let probe = rpc(&app, actor, "is_admin", json!({"uid": admin})).await;
        assert!(
            probe.status.is_client_error() || probe.body == json!(false),
            "is_admin({admin}) as {actor:?} answered {} {}",
            probe.status,
            probe.body
        );
    }
    let me = rpc(&app, Actor::User(admin), "is_admin", json!({})).await;
    assert_eq!(me.ok(), &json!(true));
}

#[tokio::test]
async fn a_paid_templates_link_is_not_in_its_public_row() {
    let app = spawn_marketplace().await;
    let f = fixture(&app).await;
    let public = rows(
        &app,
        Actor::Anon,
        &format!(
            "templates?id=eq.{}&select=template_url,price_in_cents",
            f.t_paid
        ),
    )
    .await;
    assert_eq!(
        public,
        vec![json!({"template_url": null, "price_in_cents": 900})]
    );
    let own = rows(
        &app,
        Actor::User(f.owner),
        &format!(
            "paid_template_links?template_id=eq.{}&select=template_url",
            f.t_paid
        ),
    )
    .await;
    assert_eq!(
        own,
        vec![json!({"template_url": "https://workspace.test/paid"})]
    );
    // An edit of a paid template's link through the API moves it too.
    let changed = rest(
        &app,
        Actor::User(f.owner),
        Method::PATCH,
        &format!("templates?id=eq.{}", f.t_paid),
        Some(json!({"template_url": "https://workspace.test/edited"})),
        "return=representation",
    )
    .await;
    assert_eq!(changed.rows()[0]["template_url"], Value::Null);
    let own = rows(
        &app,
        Actor::User(f.owner),
        &format!(
            "paid_template_links?template_id=eq.{}&select=template_url",
            f.t_paid
        ),
    )
    .await;
    assert_eq!(
        own,
        vec![json!({"template_url": "https://workspace.test/edited"})]
    );
    let free = rows(
        &app,
        Actor::Anon,
        &format!("templates?id=eq.{}&select=template_url", f.t_own),
    )
    .await;
    assert_eq!(free.len(), 1, "free templates are untouched");

    // The edit screen sends the price alone: the link follows it both ways.
    let set_price = |price: f64| {
        let app = &app;
        let id = f.t_paid;
        let owner = f.owner;
        async move {
            let r = rest(
                app,
                Actor::User(owner),
                Method::PATCH,
                &format!("templates?id=eq.{id}"),
                Some(json!({ "price": price })),
                "",
            )
            .await;
            assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
            rows(
                app,
                Actor::Anon,
                &format!("templates?id=eq.{id}&select=template_url,price_in_cents"),
            )
            .await
        }
    };
    assert_eq!(
        set_price(0.0).await,
        vec![json!({"template_url": "https://workspace.test/edited", "price_in_cents": 0})],
        "made free: public again"
    );
    assert_eq!(
        set_price(4.0).await,
        vec![json!({"template_url": null, "price_in_cents": 400})],
        "made paid: hidden again"
    );
    let own = rows(
        &app,
        Actor::User(f.owner),
        &format!(
            "paid_template_links?template_id=eq.{}&select=template_url",
            f.t_paid
        ),
    )
    .await;
    assert_eq!(
        own,
        vec![json!({"template_url": "https://workspace.test/edited"})]
    );
}

/// The links of a paid template (its stored file and its workspace link)
/// are read by its creator and admins only: not by visitors, other users, or
/// its buyers (they get a signed, expiring link from validate-download). A
/// free template's links are public.
#[tokio::test]
async fn the_links_of_a_paid_template_are_read_by_its_owner_and_admins_only() {
    let app = spawn_marketplace().await;
    let f = fixture(&app).await;
    let pool = owner_pool(&app);
    let buyer = create_user(&app, "buyer@test.dev", "Buyer").await;
    sqlx::query(
        "insert into public.orders (product_id, buyer_id, buyer_email, price_in_cents, payment_status)
         values ($1, $2, 'buyer@test.dev', 900, 'paid')",
    )
    .bind(f.t_paid)
    .bind(buyer)
    .execute(pool)
    .await
    .unwrap();
    let free_file = format!("templates/{}/files/free.zip", f.owner);
    sqlx::query("update public.templates set template_file_url = $2, template_url = 'https://workspace.test/free' where id = $1")
        .bind(f.t_own)
        .bind(&free_file)
        .execute(pool)
        .await
        .unwrap();
    let paid_links = json!({
        "template_file_url": format!("template-files/{}/files/paid.zip", f.owner),
        "template_url": "https://workspace.test/paid",
    });
    let hidden = json!({"template_file_url": null, "template_url": null});
    let columns = "select=template_file_url,template_url";
    //                 actor                 reads the kept links
    for (name, actor, reads) in [
        ("anon", Actor::Anon, false),
        ("other user", Actor::User(f.other), false),
        ("buyer", Actor::User(buyer), false),
        ("owner", Actor::User(f.owner), true),
        ("admin", Actor::User(f.admin), true),
        ("service", Actor::Service, true),
    ] {
        let public = rows(
            &app,
            actor,
            &format!("templates?id=eq.{}&{columns}", f.t_paid),
        )
        .await;
        assert_eq!(
            public,
            vec![hidden.clone()],
            "{name}: the paid template's row"
        );
        // Visitors may not even ask (a 401), others see no row.
        let kept = get(
            &app,
            actor,
            &format!("paid_template_links?template_id=eq.{}&{columns}", f.t_paid),
        )
        .await;
        let kept = if kept.status.is_success() {
            kept.rows().clone()
        } else {
            assert_eq!(
                kept.status,
                StatusCode::UNAUTHORIZED,
                "{name}: {}",
                kept.body
            );
            vec![]
        };
        let want = if reads {
            vec![paid_links.clone()]
        } else {
            vec![]
        };
        assert_eq!(kept, want, "{name}: the paid template's kept links");
        let free = rows(
            &app,
            actor,
            &format!("templates?id=eq.{}&{columns}", f.t_own),
        )
        .await;
        assert_eq!(
            free,
            vec![
                json!({"template_file_url": free_file, "template_url": "https://workspace.test/free"})
            ],
            "{name}: a free template's links"
        );
    }
}
