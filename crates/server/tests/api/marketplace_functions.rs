//! Every RPC function and trigger of the marketplace, through the REST
//! gateway (`POST /rest/v1/rpc/<fn>`) with real JWTs.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::marketplace_support::*;

/// A submission of `creator`: a paid template, whose file is in the creator's
/// folder of the private bucket.
fn template_payload(title: &str, category: Uuid, creator: Uuid) -> Value {
    json!({
        "title": title,
        "description": "A short description",
        "about_template": "About it",
        "price": 4.99,
        "category_id": category,
        "tags": ["one", "two"],
        "features_included": ["Template file"],
        "requirements": ["An account"],
        "preview_image_url": "u/previews/a.png",
        "preview_images": ["u/previews/b.png"],
        "template_file_url": format!("template-files/{creator}/files/t.zip"),
    })
}

fn uuid_of(v: &Value) -> Uuid {
    v.as_str()
        .unwrap_or_else(|| panic!("not a uuid: {v}"))
        .parse()
        .unwrap()
}

async fn count(app: &TestApp, sql: &str, id: Uuid) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
        .bind(id)
        .fetch_one(owner_pool(app))
        .await
        .unwrap()
}

struct People {
    creator: Uuid,
    other: Uuid,
    admin: Uuid,
    category: Uuid,
}

async fn people(app: &TestApp) -> People {
    let creator = create_user(app, "creator@test.dev", "Creator Person").await;
    let other = create_user(app, "other@test.dev", "Other Person").await;
    let admin = create_user(app, "admin@test.dev", "Admin Person").await;
    make_admin(app, admin).await;
    People {
        creator,
        other,
        admin,
        category: category_id(app, "education").await,
    }
}

#[tokio::test]
async fn approve_is_for_admins_and_publishes_the_pending_template() {
    let app = spawn_marketplace().await;
    let p = people(&app).await;
    let submitted = rpc(
        &app,
        Actor::User(p.creator),
        "submit_template",
        json!({"template": template_payload("My Template", p.category, p.creator)}),
    )
    .await;
    let pending = uuid_of(submitted.ok());
    let row = rows(
        &app,
        Actor::User(p.creator),
        &format!("templates_pending_approval?id=eq.{pending}"),
    )
    .await;
    assert_eq!(row[0]["status"], "Pending Approval");
    assert_eq!(row[0]["price_in_cents"], 499);
    assert_eq!(row[0]["tags"], json!(["one", "two"]));

    for actor in [Actor::Anon, Actor::User(p.creator), Actor::User(p.other)] {
        let denied = rpc(
            &app,
            actor,
            "admin_approve_template",
            json!({"pending_template_id": pending}),
        )
        .await;
        let want = if actor == Actor::Anon {
            StatusCode::UNAUTHORIZED
        } else {
            StatusCode::FORBIDDEN
        };
        assert_eq!(denied.status, want, "{actor:?}: {}", denied.body);
    }
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_pending_approval where id = $1",
            pending
        )
        .await,
        1
    );

    // The creator's private channel hears of the decision only when it is
    // made: the refused attempts announced nothing.
    let announced = || async {
        sqlx::query_scalar::<_, Value>(
            "select payload from realtime.messages \
             where topic = 'creator:' || $1::text and event = 'template_reviewed' and private",
        )
        .bind(p.creator)
        .fetch_all(&app.test_db.db.owner)
        .await
        .unwrap()
    };
    assert!(announced().await.is_empty());
    let approved = rpc(
        &app,
        Actor::User(p.admin),
        "admin_approve_template",
        json!({"pending_template_id": pending}),
    )
    .await;
    assert_eq!(
        uuid_of(approved.ok()),
        pending,
        "a first submission is published under its pending id"
    );
    let notices = announced().await;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["status"], "approved");
    assert_eq!(notices[0]["title"], "My Template");
    assert_eq!(notices[0]["template_id"], json!(pending));
    let published = rows(&app, Actor::Anon, &format!("templates?id=eq.{pending}")).await;
    assert_eq!(published.len(), 1);
    let t = &published[0];
    assert_eq!(
        (t["is_published"].clone(), t["status"].clone()),
        (json!(true), json!("published"))
    );
    assert_eq!(
        (t["user_id"].clone(), t["title"].clone()),
        (json!(p.creator), json!("My Template"))
    );
    assert_eq!(t["author"], "Creator Person");
    assert_eq!(t["price_in_cents"], 499);
    // A paid template's file is kept out of its public row, for its creator.
    assert_eq!(t["template_file_url"], Value::Null);
    let kept = rows(
        &app,
        Actor::User(p.creator),
        &format!("paid_template_links?template_id=eq.{pending}&select=template_file_url"),
    )
    .await;
    assert_eq!(
        kept,
        vec![json!({"template_file_url": format!("template-files/{}/files/t.zip", p.creator)})]
    );
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_pending_approval where id = $1",
            pending
        )
        .await,
        0
    );

    // Approving what is no longer pending is a 404, not a server error.
    let again = rpc(
        &app,
        Actor::User(p.admin),
        "admin_approve_template",
        json!({"pending_template_id": pending}),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_FOUND, "{}", again.body);
}

#[tokio::test]
async fn an_edit_is_rejected_resubmitted_and_approved_into_the_original_template() {
    let app = spawn_marketplace().await;
    let p = people(&app).await;
    let original = published_template(&app, p.creator, "Original", p.category, 0.0).await;
    sqlx::query("update public.templates set downloads_count = 42, total_views = 300, created_at = now() - interval '30 days' where id = $1")
        .bind(original)
        .execute(owner_pool(&app))
        .await
        .unwrap();
    rest(
        &app,
        Actor::User(p.other),
        Method::POST,
        "template_upvotes",
        Some(json!({"template_id": original, "user_id": p.other})),
        "",
    )
    .await
    .ok();
    rest(
        &app,
        Actor::User(p.other),
        Method::POST,
        "template_ratings",
        Some(json!({"template_id": original, "user_id": p.other, "rating": 4})),
        "",
    )
    .await
    .ok();

    // Someone else cannot submit an edit of it.
    let mut edit = template_payload("Edited", p.category, p.creator);
    edit["original_template_id"] = json!(original);
    let theft = rpc(
        &app,
        Actor::User(p.other),
        "submit_template",
        json!({"template": edit}),
    )
    .await;
    assert_eq!(theft.status, StatusCode::NOT_FOUND, "{}", theft.body);

    let pending = uuid_of(
        rpc(
            &app,
            Actor::User(p.creator),
            "submit_template",
            json!({"template": edit}),
        )
        .await
        .ok(),
    );
    assert_ne!(pending, original);

    // Reject: admins only, a reason is required; the rejection is filed whole.
    let denied = rpc(
        &app,
        Actor::User(p.creator),
        "admin_reject_template",
        json!({"pending_template_id": pending, "reason": "no"}),
    )
    .await;
    assert_eq!(denied.status, StatusCode::FORBIDDEN, "{}", denied.body);
    let no_reason = rpc(
        &app,
        Actor::User(p.admin),
        "admin_reject_template",
        json!({"pending_template_id": pending, "reason": "  "}),
    )
    .await;
    assert_eq!(
        no_reason.status,
        StatusCode::BAD_REQUEST,
        "{}",
        no_reason.body
    );
    assert_eq!(no_reason.body["message"], "A rejection reason is required");
    let rejected = rpc(
        &app,
        Actor::User(p.admin),
        "admin_reject_template",
        json!({"pending_template_id": pending, "reason": " Add screenshots "}),
    )
    .await;
    assert_eq!(uuid_of(rejected.ok()), pending);
    let r = rows(
        &app,
        Actor::User(p.creator),
        &format!("templates_rejected?id=eq.{pending}"),
    )
    .await;
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["rejection_comment"], "Add screenshots");
    assert!(r[0]["rejection_date"].is_string());
    assert_eq!(r[0]["original_template_id"], json!(original));
    assert_eq!(r[0]["title"], "Edited");
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_pending_approval where id = $1",
            pending
        )
        .await,
        0
    );
    // The published original is untouched by the rejection.
    let live = rows(&app, Actor::Anon, &format!("templates?id=eq.{original}")).await;
    assert_eq!(live[0]["title"], "Original");

    // Resubmit from the rejected record: same id, the edit link kept.
    let resubmitted = rpc(
        &app,
        Actor::User(p.creator),
        "submit_template",
        json!({"template": template_payload("Edited Again", p.category, p.creator), "rejected_id": pending}),
    )
    .await;
    assert_eq!(uuid_of(resubmitted.ok()), pending);
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_rejected where id = $1",
            pending
        )
        .await,
        0
    );
    let again = rows(
        &app,
        Actor::User(p.admin),
        &format!("templates_pending_approval?id=eq.{pending}"),
    )
    .await;
    assert_eq!(
        (
            again[0]["status"].clone(),
            again[0]["original_template_id"].clone()
        ),
        (json!("Pending Approval"), json!(original))
    );

    // Approve: the original template takes the new content, keeps id and counters.
    let approved = rpc(
        &app,
        Actor::User(p.admin),
        "admin_approve_template",
        json!({"pending_template_id": pending}),
    )
    .await;
    assert_eq!(uuid_of(approved.ok()), original);
    let mine = rows(&app, Actor::Anon, &format!("templates?user_id=eq.{}&select=id,title,downloads_count,total_views,average_rating,total_ratings,price_in_cents", p.creator)).await;
    assert_eq!(mine.len(), 1, "no second template: {mine:?}");
    let t = &mine[0];
    assert_eq!(t["id"], json!(original));
    assert_eq!(t["title"], "Edited Again");
    assert_eq!(
        (
            t["downloads_count"].clone(),
            t["total_views"].clone(),
            t["total_ratings"].clone()
        ),
        (json!(42), json!(300), json!(1))
    );
    assert_eq!(num(&t["average_rating"]), 4.0);
    assert_eq!(t["price_in_cents"], 499);
    let upvotes = rows(
        &app,
        Actor::Anon,
        &format!("template_upvote_counts?template_id=eq.{original}"),
    )
    .await;
    assert_eq!(upvotes[0]["upvote_count"], 1);
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_pending_approval where id = $1",
            pending
        )
        .await,
        0
    );
}

#[tokio::test]
async fn drafts_are_submitted_and_rejections_become_drafts_again() {
    let app = spawn_marketplace().await;
    let p = people(&app).await;
    let draft = rest(&app, Actor::User(p.creator), Method::POST, "templates_draft",
        Some(json!({"creator_id": p.creator, "title": "Draft One", "price": 3, "price_in_cents": 300})), "return=representation").await;
    assert_eq!(draft.status, StatusCode::CREATED, "{}", draft.body);
    let draft_id = uuid_of(&draft.rows()[0]["id"]);

    // Someone else's draft id is left alone.
    let other_draft = rest(
        &app,
        Actor::User(p.other),
        Method::POST,
        "templates_draft",
        Some(json!({"creator_id": p.other, "title": "Not yours"})),
        "return=representation",
    )
    .await;
    let other_draft_id = uuid_of(&other_draft.rows()[0]["id"]);
    let foreign = rpc(
        &app,
        Actor::User(p.creator),
        "submit_template",
        json!({"template": template_payload("Sneaky", p.category, p.creator), "draft_id": other_draft_id}),
    )
    .await;
    foreign.ok();
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_draft where id = $1",
            other_draft_id
        )
        .await,
        1
    );

    let pending = uuid_of(
        rpc(
            &app,
            Actor::User(p.creator),
            "submit_template",
            json!({"template": template_payload("Draft One", p.category, p.creator), "draft_id": draft_id}),
        )
        .await
        .ok(),
    );
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_draft where id = $1",
            draft_id
        )
        .await,
        0
    );
    assert_eq!(
        rows(
            &app,
            Actor::User(p.creator),
            &format!("templates_pending_approval?id=eq.{pending}")
        )
        .await
        .len(),
        1
    );

    // Submitting needs a signed-in caller, and a complete template.
    let anon = rpc(
        &app,
        Actor::Anon,
        "submit_template",
        json!({"template": template_payload("X", p.category, p.creator)}),
    )
    .await;
    assert_eq!(anon.status, StatusCode::UNAUTHORIZED, "{}", anon.body);
    let incomplete = rpc(
        &app,
        Actor::User(p.creator),
        "submit_template",
        json!({"template": {"title": "No category"}}),
    )
    .await;
    assert_eq!(
        incomplete.status,
        StatusCode::BAD_REQUEST,
        "{}",
        incomplete.body
    );

    rpc(
        &app,
        Actor::User(p.admin),
        "admin_reject_template",
        json!({"pending_template_id": pending, "reason": "Needs previews"}),
    )
    .await
    .ok();

    // Only its creator turns a rejection into a draft.
    let stranger = rpc(
        &app,
        Actor::User(p.other),
        "save_rejected_as_draft",
        json!({"rejected_id": pending}),
    )
    .await;
    assert_eq!(stranger.status, StatusCode::NOT_FOUND, "{}", stranger.body);
    let saved = rpc(
        &app,
        Actor::User(p.creator),
        "save_rejected_as_draft",
        json!({"rejected_id": pending}),
    )
    .await;
    assert_eq!(uuid_of(saved.ok()), pending);
    let d = rows(
        &app,
        Actor::User(p.creator),
        &format!("templates_draft?id=eq.{pending}"),
    )
    .await;
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0]["title"].clone(), d[0]["price_in_cents"].clone()),
        (json!("Draft One"), json!(499))
    );
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_rejected where id = $1",
            pending
        )
        .await,
        0
    );
}

#[tokio::test]
async fn a_rejected_edit_saved_as_a_draft_still_replaces_the_original_template() {
    let app = spawn_marketplace().await;
    let p = people(&app).await;
    let original = published_template(&app, p.creator, "Original", p.category, 0.0).await;
    sqlx::query("update public.templates set downloads_count = 7 where id = $1")
        .bind(original)
        .execute(owner_pool(&app))
        .await
        .unwrap();

    // An edit of the published template, rejected, then saved as a draft: the
    // draft keeps the link to the template it edits.
    let mut edit = template_payload("Edited", p.category, p.creator);
    edit["original_template_id"] = json!(original);
    let pending = uuid_of(
        rpc(
            &app,
            Actor::User(p.creator),
            "submit_template",
            json!({"template": edit}),
        )
        .await
        .ok(),
    );
    rpc(
        &app,
        Actor::User(p.admin),
        "admin_reject_template",
        json!({"pending_template_id": pending, "reason": "Add screenshots"}),
    )
    .await
    .ok();
    let saved = rpc(
        &app,
        Actor::User(p.creator),
        "save_rejected_as_draft",
        json!({"rejected_id": pending}),
    )
    .await;
    assert_eq!(uuid_of(saved.ok()), pending);
    let d = rows(
        &app,
        Actor::User(p.creator),
        &format!("templates_draft?id=eq.{pending}&select=title,original_template_id"),
    )
    .await;
    assert_eq!(
        (d[0]["title"].clone(), d[0]["original_template_id"].clone()),
        (json!("Edited"), json!(original))
    );

    // Submitted from the draft (the payload names no original): still an edit.
    let resubmitted = uuid_of(
        rpc(
            &app,
            Actor::User(p.creator),
            "submit_template",
            json!({"template": template_payload("Edited From Draft", p.category, p.creator), "draft_id": pending}),
        )
        .await
        .ok(),
    );
    assert_eq!(
        count(
            &app,
            "select count(*) from public.templates_draft where id = $1",
            pending
        )
        .await,
        0
    );
    let queued = rows(
        &app,
        Actor::User(p.admin),
        &format!("templates_pending_approval?id=eq.{resubmitted}"),
    )
    .await;
    assert_eq!(queued[0]["original_template_id"], json!(original));

    // Approved into the original: same id, new title, counters kept, no second template.
    let approved = rpc(
        &app,
        Actor::User(p.admin),
        "admin_approve_template",
        json!({"pending_template_id": resubmitted}),
    )
    .await;
    assert_eq!(uuid_of(approved.ok()), original);
    let mine = rows(
        &app,
        Actor::Anon,
        &format!(
            "templates?user_id=eq.{}&select=id,title,downloads_count,is_published",
            p.creator
        ),
    )
    .await;
    assert_eq!(mine.len(), 1, "no second template: {mine:?}");
    assert_eq!(
        (
            mine[0]["id"].clone(),
            mine[0]["title"].clone(),
            mine[0]["downloads_count"].clone(),
            mine[0]["is_published"].clone()
        ),
        (
            json!(original),
            json!("Edited From Draft"),
            json!(7),
            json!(true)
        )
    );

    // The draft's column is only a hint: a draft pointed at someone else's
    // template is submitted as a new template, and theirs is never touched.
    let foreign = published_template(&app, p.other, "Not Yours", p.category, 0.0).await;
    let sneaky = rest(
        &app,
        Actor::User(p.creator),
        Method::POST,
        "templates_draft",
        Some(json!({"creator_id": p.creator, "title": "Sneaky", "original_template_id": foreign})),
        "return=representation",
    )
    .await;
    assert_eq!(sneaky.status, StatusCode::CREATED, "{}", sneaky.body);
    let sneaky_id = uuid_of(&sneaky.rows()[0]["id"]);
    let submitted = uuid_of(
        rpc(
            &app,
            Actor::User(p.creator),
            "submit_template",
            json!({"template": template_payload("Sneaky", p.category, p.creator), "draft_id": sneaky_id}),
        )
        .await
        .ok(),
    );
    let q = rows(
        &app,
        Actor::User(p.admin),
        &format!("templates_pending_approval?id=eq.{submitted}"),
    )
    .await;
    assert_eq!(q[0]["original_template_id"], Value::Null);
    let published = uuid_of(
        rpc(
            &app,
            Actor::User(p.admin),
            "admin_approve_template",
            json!({"pending_template_id": submitted}),
        )
        .await
        .ok(),
    );
    assert_ne!(published, foreign);
    let theirs = rows(&app, Actor::Anon, &format!("templates?id=eq.{foreign}")).await;
    assert_eq!(theirs[0]["title"], "Not Yours");
}

#[tokio::test]
async fn unpublished_templates_are_deleted_with_their_file_paths() {
    let app = spawn_marketplace().await;
    let p = people(&app).await;
    let pool = owner_pool(&app);
    let draft: Uuid = sqlx::query_scalar("insert into public.templates_draft (creator_id, title, preview_image_url, template_file_url) values ($1, 'D', 'c/previews/1.png', 'templates/' || $1 || '/templates/1.zip') returning id")
        .bind(p.creator).fetch_one(pool).await.unwrap();
    let pending = uuid_of(
        rpc(
            &app,
            Actor::User(p.creator),
            "submit_template",
            json!({"template": template_payload("Pending", p.category, p.creator)}),
        )
        .await
        .ok(),
    );
    let pending2 = uuid_of(
        rpc(
            &app,
            Actor::User(p.creator),
            "submit_template",
            json!({"template": template_payload("Pending 2", p.category, p.creator)}),
        )
        .await
        .ok(),
    );
    let rejected = uuid_of(
        rpc(
            &app,
            Actor::User(p.creator),
            "submit_template",
            json!({"template": template_payload("Rejected", p.category, p.creator)}),
        )
        .await
        .ok(),
    );
    rpc(
        &app,
        Actor::User(p.admin),
        "admin_reject_template",
        json!({"pending_template_id": rejected, "reason": "No"}),
    )
    .await
    .ok();

    // Not someone else's, not anonymously, not an unknown kind.
    let stranger = rpc(
        &app,
        Actor::User(p.other),
        "delete_unpublished_template",
        json!({"kind": "draft", "template_id": draft}),
    )
    .await;
    assert_eq!(stranger.status, StatusCode::NOT_FOUND, "{}", stranger.body);
    let anon = rpc(
        &app,
        Actor::Anon,
        "delete_unpublished_template",
        json!({"kind": "draft", "template_id": draft}),
    )
    .await;
    assert_eq!(anon.status, StatusCode::UNAUTHORIZED, "{}", anon.body);
    let bad = rpc(
        &app,
        Actor::User(p.creator),
        "delete_unpublished_template",
        json!({"kind": "published", "template_id": draft}),
    )
    .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.body);

    let files = rpc(
        &app,
        Actor::User(p.creator),
        "delete_unpublished_template",
        json!({"kind": "draft", "template_id": draft}),
    )
    .await;
    assert_eq!(
        files.ok(),
        &json!([
            "c/previews/1.png",
            format!("templates/{}/templates/1.zip", p.creator)
        ])
    );
    let files = rpc(
        &app,
        Actor::User(p.creator),
        "delete_unpublished_template",
        json!({"kind": "pending", "template_id": pending}),
    )
    .await;
    assert_eq!(
        files.ok(),
        &json!([
            "u/previews/a.png",
            format!("template-files/{}/files/t.zip", p.creator),
            "u/previews/b.png"
        ])
    );
    // An admin may delete any pending template; not a rejected one of someone else.
    rpc(
        &app,
        Actor::User(p.admin),
        "delete_unpublished_template",
        json!({"kind": "pending", "template_id": pending2}),
    )
    .await
    .ok();
    let admin_rejected = rpc(
        &app,
        Actor::User(p.admin),
        "delete_unpublished_template",
        json!({"kind": "rejected", "template_id": rejected}),
    )
    .await;
    assert_eq!(
        admin_rejected.status,
        StatusCode::NOT_FOUND,
        "{}",
        admin_rejected.body
    );
    rpc(
        &app,
        Actor::User(p.creator),
        "delete_unpublished_template",
        json!({"kind": "rejected", "template_id": rejected}),
    )
    .await
    .ok();
    let left: i64 = sqlx::query_scalar("select (select count(*) from public.templates_draft) + (select count(*) from public.templates_pending_approval) + (select count(*) from public.templates_rejected)")
        .fetch_one(pool).await.unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn follow_functions_answer_from_the_followers_table() {
    let app = spawn_marketplace().await;
    let a = create_user(&app, "a@test.dev", "Alice").await;
    let b = create_user(&app, "b@test.dev", "Bob").await;
    let c = create_user(&app, "c@test.dev", "Cleo").await;
    sqlx::query("update public.profiles set username = 'alice' where id = $1")
        .bind(a)
        .execute(owner_pool(&app))
        .await
        .unwrap();
    for (who, whom) in [(a, c), (b, c), (c, a)] {
        let r = rest(
            &app,
            Actor::User(who),
            Method::POST,
            "followers",
            Some(json!({"follower_id": who, "following_id": whom})),
            "",
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // Following oneself is refused.
    let selfie = rest(
        &app,
        Actor::User(a),
        Method::POST,
        "followers",
        Some(json!({"follower_id": a, "following_id": a})),
        "",
    )
    .await;
    assert_eq!(selfie.status, StatusCode::BAD_REQUEST, "{}", selfie.body);

    assert_eq!(
        rpc(
            &app,
            Actor::Anon,
            "get_follower_count",
            json!({"user_id": c})
        )
        .await
        .ok(),
        &json!(2)
    );
    assert_eq!(
        rpc(
            &app,
            Actor::Anon,
            "get_follower_count",
            json!({"user_id": b})
        )
        .await
        .ok(),
        &json!(0)
    );
    assert_eq!(
        rpc(
            &app,
            Actor::User(a),
            "is_following",
            json!({"follower": a, "following": c})
        )
        .await
        .ok(),
        &json!(true)
    );
    assert_eq!(
        rpc(
            &app,
            Actor::User(a),
            "is_following",
            json!({"follower": c, "following": b})
        )
        .await
        .ok(),
        &json!(false)
    );

    let followers = rpc(
        &app,
        Actor::User(c),
        "get_user_followers",
        json!({"user_id": c}),
    )
    .await;
    let followers = followers.ok().as_array().unwrap().clone();
    assert_eq!(
        ids(&followers),
        vec![b.to_string(), a.to_string()],
        "newest first"
    );
    assert_eq!(followers[1]["username"], "alice");
    assert_eq!(followers[1]["display_name"], "Alice");
    assert!(followers[1]["followed_at"].is_string());
    assert!(followers[1].as_object().unwrap().contains_key("avatar_url"));
    let following = rpc(
        &app,
        Actor::User(a),
        "get_user_following",
        json!({"user_id": a}),
    )
    .await;
    let following = following.ok().as_array().unwrap().clone();
    assert_eq!(ids(&following), vec![c.to_string()]);
    assert_eq!(following[0]["display_name"], "Cleo");

    // Unfollow as supabase-js does: delete by both ids.
    let gone = rest(
        &app,
        Actor::User(a),
        Method::DELETE,
        &format!("followers?follower_id=eq.{a}&following_id=eq.{c}"),
        None,
        "",
    )
    .await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT, "{}", gone.body);
    assert_eq!(
        rpc(
            &app,
            Actor::Anon,
            "get_follower_count",
            json!({"user_id": c})
        )
        .await
        .ok(),
        &json!(1)
    );
    assert_eq!(
        rpc(
            &app,
            Actor::Anon,
            "is_following",
            json!({"follower": a, "following": c})
        )
        .await
        .ok(),
        &json!(false)
    );
}

#[tokio::test]
async fn trending_creators_rank_creators_with_published_templates() {
    let app = spawn_marketplace().await;
    load_demo(&app).await;
    let answer = rpc(
        &app,
        Actor::Anon,
        "get_trending_creators",
        json!({"limit_count": 4}),
    )
    .await;
    let creators = answer.ok().as_array().unwrap().clone();
    let usernames: Vec<&str> = creators
        .iter()
        .map(|c| c["username"].as_str().unwrap())
        .collect();
    assert_eq!(
        usernames,
        ["leo-builds", "ava_studies", "mayachen", "samfit"]
    );
    let ranks: Vec<i64> = creators
        .iter()
        .map(|c| c["rank"].as_i64().unwrap())
        .collect();
    assert_eq!(ranks, [1, 2, 3, 4]);
    let leo = &creators[0];
    assert_eq!(num(&leo["weekly_growth_percentage"]), 100.0);
    assert_eq!(
        (
            leo["templates_count"].clone(),
            leo["total_downloads"].clone()
        ),
        (json!(2), json!(1280))
    );
    assert_eq!(num(&leo["rating"]), 3.8);
    assert_eq!(leo["categories"], json!(["Business"]));
    assert_eq!(leo["display_name"], "Leo Martins");
    for field in ["id", "avatar_url", "bio"] {
        assert!(leo.as_object().unwrap().contains_key(field), "{field}");
    }
    let maya = &creators[2];
    assert_eq!(
        (
            maya["templates_count"].clone(),
            maya["total_downloads"].clone()
        ),
        (json!(3), json!(2190))
    );
    assert_eq!(num(&maya["rating"]), 4.2);
    assert_eq!(maya["categories"], json!(["Finance", "Productivity"]));
    let two = rpc(
        &app,
        Actor::Anon,
        "get_trending_creators",
        json!({"limit_count": 2}),
    )
    .await;
    assert_eq!(two.ok().as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn sign_up_makes_a_profile_from_the_metadata() {
    let app = spawn_marketplace().await;
    let response = reqwest::Client::new()
        .post(format!("{}/auth/v1/signup", app.url))
        .header("apikey", &app.keys.anon_key)
        .json(
            &json!({"email": "new@test.dev", "password": "a-strong-password-1",
                      "data": {"display_name": "New Person", "avatar_url": ""}}),
        )
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let body: Value = response.json().await.unwrap();
    let id = uuid_of(if body["user"].is_object() {
        &body["user"]["id"]
    } else {
        &body["id"]
    });
    let profile = rows(&app, Actor::Anon, &format!("profiles?id=eq.{id}")).await;
    assert_eq!(profile.len(), 1);
    assert_eq!(profile[0]["display_name"], "New Person");
    assert_eq!(
        profile[0]["avatar_url"],
        Value::Null,
        "an empty avatar_url is none"
    );
    assert_eq!(profile[0]["username"], Value::Null);
    assert_eq!(profile[0]["social_links"], json!({}));
}

#[tokio::test]
async fn usernames_are_lowercase_valid_unique_and_set_once() {
    let app = spawn_marketplace().await;
    let a = create_user(&app, "a@test.dev", "A").await;
    let b = create_user(&app, "b@test.dev", "B").await;
    let set = |who: Uuid, name: &'static str| {
        let app = &app;
        async move {
            rest(
                app,
                Actor::User(who),
                Method::PATCH,
                &format!("profiles?id=eq.{who}"),
                Some(json!({"username": name})),
                "return=representation",
            )
            .await
        }
    };
    for bad in [
        "ab",
        "has space",
        "dots.not.ok",
        "émile",
        "this-username-is-much-too-long-x",
    ] {
        let r = set(a, bad).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.body);
    }
    let ok = set(a, "Maker_One").await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.body);
    assert_eq!(ok.rows()[0]["username"], "maker_one", "input is lowercased");
    // Uniqueness lookup excluding self, as the profile screen does.
    let taken = rows(
        &app,
        Actor::User(b),
        &format!("profiles?select=id&username=eq.maker_one&id=neq.{b}"),
    )
    .await;
    assert_eq!(taken.len(), 1);
    let dup = set(b, "MAKER_ONE").await;
    assert_eq!(dup.status, StatusCode::CONFLICT, "{}", dup.body);
    assert_eq!(dup.body["code"], "23505");
    let change = set(a, "maker_two").await;
    assert_eq!(change.status, StatusCode::BAD_REQUEST, "{}", change.body);
    assert_eq!(
        change.body["message"],
        "Username cannot be changed once set"
    );
    // Sending the same username again (with other fields) is not a change.
    let same = rest(
        &app,
        Actor::User(a),
        Method::PATCH,
        &format!("profiles?id=eq.{a}"),
        Some(json!({"username": "maker_one", "display_name": "Maker"})),
        "return=representation",
    )
    .await;
    assert_eq!(same.status, StatusCode::OK, "{}", same.body);
    assert_eq!(same.rows()[0]["display_name"], "Maker");
}

#[tokio::test]
async fn ratings_keep_the_template_aggregates_right() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "c@test.dev", "C").await;
    let raters: Vec<Uuid> = futures_free_users(&app, 3).await;
    let t = published_template(
        &app,
        creator,
        "Rated",
        category_id(&app, "finance").await,
        0.0,
    )
    .await;
    let aggregates = || async {
        let r = rows(
            &app,
            Actor::Anon,
            &format!("templates?id=eq.{t}&select=average_rating,total_ratings"),
        )
        .await;
        (
            num(&r[0]["average_rating"]),
            r[0]["total_ratings"].as_i64().unwrap(),
        )
    };
    for (user, stars) in raters.iter().zip([5, 4, 2]) {
        let r = rest(
            &app,
            Actor::User(*user),
            Method::POST,
            "template_ratings?on_conflict=template_id,user_id",
            Some(json!({"template_id": t, "user_id": user, "rating": stars, "review_text": "  "})),
            "resolution=merge-duplicates, return=representation",
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        assert_eq!(
            r.rows()[0]["review_text"],
            Value::Null,
            "a blank review is none"
        );
    }
    assert_eq!(aggregates().await, (3.67, 3));
    // Re-rating (upsert on template_id,user_id) replaces the rating.
    let r = rest(
        &app,
        Actor::User(raters[2]),
        Method::POST,
        "template_ratings?on_conflict=template_id,user_id",
        Some(
            json!({"template_id": t, "user_id": raters[2], "rating": 5, "review_text": " Great "}),
        ),
        "resolution=merge-duplicates, return=representation",
    )
    .await;
    assert!(r.status.is_success(), "{} {}", r.status, r.body);
    assert_eq!(r.rows()[0]["review_text"], "Great");
    assert_eq!(aggregates().await, (4.67, 3));
    let r = rest(
        &app,
        Actor::User(raters[1]),
        Method::PATCH,
        &format!(
            "template_ratings?template_id=eq.{t}&user_id=eq.{}",
            raters[1]
        ),
        Some(json!({"rating": 1})),
        "",
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(aggregates().await, (3.67, 3));
    let r = rest(
        &app,
        Actor::User(raters[0]),
        Method::DELETE,
        &format!(
            "template_ratings?template_id=eq.{t}&user_id=eq.{}",
            raters[0]
        ),
        None,
        "",
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(aggregates().await, (3.0, 2));
    for user in &raters[1..] {
        rest(
            &app,
            Actor::User(*user),
            Method::DELETE,
            &format!("template_ratings?template_id=eq.{t}&user_id=eq.{user}"),
            None,
            "",
        )
        .await
        .ok();
    }
    assert_eq!(aggregates().await, (0.0, 0));
    // Out of range is refused.
    let r = rest(
        &app,
        Actor::User(raters[0]),
        Method::POST,
        "template_ratings",
        Some(json!({"template_id": t, "user_id": raters[0], "rating": 6})),
        "",
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
}

async fn futures_free_users(app: &TestApp, n: usize) -> Vec<Uuid> {
    let mut users = Vec::new();
    for i in 0..n {
        users.push(create_user(app, &format!("user{i}@test.dev"), &format!("User {i}")).await);
    }
    users
}

#[tokio::test]
async fn concurrent_upvotes_and_ratings_count_exactly() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "c@test.dev", "C").await;
    let t = published_template(
        &app,
        creator,
        "Popular",
        category_id(&app, "business").await,
        0.0,
    )
    .await;
    let users = futures_free_users(&app, 24).await;
    let app = std::sync::Arc::new(app);

    // Every user upvotes at once, and the first user also hammers the button.
    let mut tasks = Vec::new();
    for (i, user) in users.iter().copied().enumerate() {
        let repeats = if i == 0 { 8 } else { 1 };
        for _ in 0..repeats {
            let app = app.clone();
            tasks.push(tokio::spawn(async move {
                rest(
                    &app,
                    Actor::User(user),
                    Method::POST,
                    "template_upvotes",
                    Some(json!({"template_id": t, "user_id": user})),
                    "",
                )
                .await
                .status
            }));
        }
    }
    let mut created = 0;
    for task in tasks {
        match task.await.unwrap() {
            StatusCode::CREATED => created += 1,
            StatusCode::CONFLICT => {}
            other => panic!("an upvote answered {other}"),
        }
    }
    assert_eq!(created, users.len(), "one upvote per user");
    let counts = rows(
        &app,
        Actor::Anon,
        &format!("template_upvote_counts?template_id=eq.{t}"),
    )
    .await;
    assert_eq!(counts[0]["upvote_count"], json!(users.len()));

    // Every user rates at once (1..=5 in turn), some twice through the upsert.
    let mut tasks = Vec::new();
    for (i, user) in users.iter().copied().enumerate() {
        for round in 0..if i % 3 == 0 { 2 } else { 1 } {
            let app = app.clone();
            let stars = (i % 5) as i64 + 1;
            tasks.push(tokio::spawn(async move {
                let _ = round;
                rest(
                    &app,
                    Actor::User(user),
                    Method::POST,
                    "template_ratings?on_conflict=template_id,user_id",
                    Some(json!({"template_id": t, "user_id": user, "rating": stars})),
                    "resolution=merge-duplicates",
                )
                .await
            }));
        }
    }
    for task in tasks {
        let answer = task.await.unwrap();
        assert!(
            answer.status.is_success(),
            "a rating answered {} {}",
            answer.status,
            answer.body
        );
    }
    let expected_total = users.len() as i64;
    let expected_avg: f64 =
        (0..users.len()).map(|i| (i % 5) as f64 + 1.0).sum::<f64>() / users.len() as f64;
    let r = rows(
        &app,
        Actor::Anon,
        &format!("templates?id=eq.{t}&select=average_rating,total_ratings"),
    )
    .await;
    assert_eq!(r[0]["total_ratings"].as_i64().unwrap(), expected_total);
    assert_eq!(
        num(&r[0]["average_rating"]),
        (expected_avg * 100.0).round() / 100.0
    );
}

#[tokio::test]
async fn counters_do_not_make_a_template_look_updated() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "touch@test.dev", "Toucher").await;
    let rater = create_user(&app, "rater@test.dev", "Rater").await;
    let t = published_template(
        &app,
        creator,
        "Touched",
        category_id(&app, "finance").await,
        0.0,
    )
    .await;
    let pool = owner_pool(&app);
    sqlx::query("update public.templates set updated_at = '2020-01-01T00:00:00Z' where id = $1")
        .bind(t)
        .execute(pool)
        .await
        .unwrap();
    let updated_at = || async {
        rows(
            &app,
            Actor::Anon,
            &format!("templates?id=eq.{t}&select=updated_at"),
        )
        .await[0]["updated_at"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let old = updated_at().await;
    assert!(old.starts_with("2020-01-01"), "{old}");
    // A download counted, a view counted, a rating: counters only.
    sqlx::query("update public.templates set downloads_count = downloads_count + 1, total_views = total_views + 1 where id = $1")
        .bind(t)
        .execute(pool)
        .await
        .unwrap();
    let r = rest(
        &app,
        Actor::User(rater),
        Method::POST,
        "template_ratings",
        Some(json!({"template_id": t, "user_id": rater, "rating": 4})),
        "",
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(updated_at().await, old, "counters leave updated_at alone");
    // Its creator's edit is an update.
    let r = rest(
        &app,
        Actor::User(creator),
        Method::PATCH,
        &format!("templates?id=eq.{t}"),
        Some(json!({"title": "Touched again"})),
        "",
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert!(
        !updated_at().await.starts_with("2020-01-01"),
        "an edit moves updated_at"
    );
}

/// `POST /functions/v1/{name}` (or `/api/...`) as supabase-js sends it.
async fn call_function(
    app: &TestApp,
    actor: Actor,
    path: &str,
    body: Value,
) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("authorization", format!("Bearer {}", token(app, actor)))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Paid sales count as downloads where free ones are counted: a paid
/// order's first download adds one to `downloads_count`, once per order
/// however often it is opened (with its link or by its signed-in buyer).
#[tokio::test]
async fn a_paid_order_counts_one_download_however_often_it_is_opened() {
    let app = spawn_marketplace().await;
    let p = people(&app).await;
    let paid = published_template(&app, p.creator, "Paid Counted", p.category, 9.0).await;
    set_template_url(&app, paid, "https://workspace.test/paid").await;
    let downloads = || {
        count(
            &app,
            "select downloads_count::bigint from public.templates where id = $1",
            paid,
        )
    };
    assert_eq!(downloads().await, 0);

    // A guest and a signed-in member buy it; nothing is counted before a
    // download, not even a pending order's refused one.
    let mut orders = Vec::new();
    for (actor, email) in [
        (Actor::Anon, "guest@test.dev".to_owned()),
        (Actor::User(p.other), format!("{}@test.plinth.dev", p.other)),
    ] {
        let (status, intent) = call_function(
            &app,
            actor,
            "/functions/v1/create-payment-intent",
            json!({"templateId": paid, "buyerEmail": email}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{intent}");
        let (status, body) = call_function(
            &app,
            actor,
            "/functions/v1/validate-download",
            json!({"orderId": intent["orderId"], "token": intent["downloadToken"]}),
        )
        .await;
        assert_eq!(status, StatusCode::PAYMENT_REQUIRED, "unpaid: {body}");
        let payment = intent["confirmUrl"]
            .as_str()
            .unwrap()
            .split('?')
            .next()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_owned();
        let (status, body) = call_function(
            &app,
            Actor::Anon,
            &format!("/api/simulated-payments/{payment}/confirm"),
            json!({"client_secret": intent["clientSecret"]}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        orders.push((actor, intent));
    }
    assert_eq!(downloads().await, 0, "bought, not yet downloaded");

    // Each order opened twice: the guest with the link, the member with the
    // link and then from their library (no token).
    for (actor, intent) in &orders {
        for with_token in [true, false] {
            let body = match (actor, with_token) {
                (Actor::Anon, _) | (_, true) => {
                    json!({"orderId": intent["orderId"], "token": intent["downloadToken"]})
                }
                _ => json!({"orderId": intent["orderId"]}),
            };
            let (status, answer) =
                call_function(&app, *actor, "/functions/v1/validate-download", body).await;
            assert_eq!(status, StatusCode::OK, "{answer}");
            assert_eq!(answer["downloadUrl"], "https://workspace.test/paid");
        }
    }
    assert_eq!(downloads().await, 2, "two orders, each counted once");
}

/// A free download is saved, not shown in place of the marketplace: the
/// signed link create-free-order hands out asks storage for an attachment
/// named like the file itself (issue 15, item 16).
#[tokio::test]
async fn a_free_download_link_answers_an_attachment_named_like_the_file() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "free-maker@test.dev", "Free Maker").await;
    let cat = category_id(&app, "productivity").await;
    let name = format!("{creator}/files/Planner Kit.png");
    let uploaded = reqwest::Client::new()
        .post(format!(
            "{}/storage/v1/object/templates/{creator}/files/Planner%20Kit.png",
            app.url
        ))
        .header("apikey", &app.keys.anon_key)
        .header(
            "authorization",
            format!("Bearer {}", token(&app, Actor::User(creator))),
        )
        .header("content-type", "image/png")
        .body(&b"\x89PNG free kit"[..])
        .send()
        .await
        .unwrap();
    assert!(
        uploaded.status().is_success(),
        "{}",
        uploaded.text().await.unwrap()
    );
    let free = published_template(&app, creator, "Free Planner", cat, 0.0).await;
    sqlx::query("update public.templates set template_file_url = $2 where id = $1")
        .bind(free)
        .bind(format!("templates/{name}"))
        .execute(owner_pool(&app))
        .await
        .unwrap();

    let (status, answer) = call_function(
        &app,
        Actor::Anon,
        "/functions/v1/create-free-order",
        json!({"product_id": free, "buyer_email": "taker@test.dev"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let url = answer["downloadUrl"].as_str().unwrap();
    assert!(url.contains("/storage/v1/object/sign/"), "{url}");
    let at = url.find("/storage/v1/").unwrap();
    let got = reqwest::get(format!("{}{}", app.url, &url[at..]))
        .await
        .unwrap();
    assert_eq!(got.status(), StatusCode::OK);
    let disposition = got
        .headers()
        .get("content-disposition")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    assert!(
        disposition.starts_with("attachment;") && disposition.contains("filename="),
        "{disposition}"
    );
    // (as the platform names it: a browser saves it as "Planner Kit.png")
    assert!(
        disposition.contains("filename*=UTF-8''Planner%20Kit.png"),
        "{disposition}"
    );
    assert_eq!(&got.bytes().await.unwrap()[..], b"\x89PNG free kit");
}

/// The simulated provider's test cards decline as Stripe's do (issue 15):
/// each answers 402 with Stripe's card error, leaves the payment payable
/// (`requires_payment_method`) and the order failed, so its download is
/// refused with 402; then 4242 4242 4242 4242 pays the same payment and the
/// download opens. The card number is kept nowhere.
#[tokio::test]
async fn simulated_test_cards_decline_as_stripe_does_and_another_card_pays() {
    let app = spawn_marketplace().await;
    let p = people(&app).await;
    let paid = published_template(&app, p.creator, "Paid Cards", p.category, 9.0).await;
    set_template_url(&app, paid, "https://workspace.test/cards").await;
    let (status, intent) = call_function(
        &app,
        Actor::Anon,
        "/functions/v1/create-payment-intent",
        json!({"templateId": paid, "buyerEmail": "cards@test.dev"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{intent}");
    let order = uuid_of(&intent["orderId"]);
    let payment = intent["confirmUrl"]
        .as_str()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let confirm_path = format!("/api/simulated-payments/{payment}/confirm");
    let confirm = |card: &str, secret: Value| {
        call_function(
            &app,
            Actor::Anon,
            &confirm_path,
            json!({"client_secret": secret, "card_number": card}),
        )
    };
    let states = || async {
        let order_status: String =
            sqlx::query_scalar("select payment_status from public.orders where id = $1")
                .bind(order)
                .fetch_one(owner_pool(&app))
                .await
                .unwrap();
        let payment_status: String =
            sqlx::query_scalar("select status from functions.simulated_payments where id = $1")
                .bind(&payment)
                .fetch_one(owner_pool(&app))
                .await
                .unwrap();
        (order_status, payment_status)
    };
    let download = || {
        call_function(
            &app,
            Actor::Anon,
            "/functions/v1/validate-download",
            json!({"orderId": order, "token": intent["downloadToken"]}),
        )
    };

    for (card, error) in [
        (
            "4000 0000 0000 0002",
            json!({"type": "card_error", "code": "card_declined",
                   "decline_code": "generic_decline", "message": "Your card was declined."}),
        ),
        (
            "4000000000009995",
            json!({"type": "card_error", "code": "card_declined",
                   "decline_code": "insufficient_funds",
                   "message": "Your card has insufficient funds."}),
        ),
        (
            "4000-0000-0000-0119",
            json!({"type": "card_error", "code": "processing_error",
                   "message": "An error occurred while processing your card. Try again in a little bit."}),
        ),
        (
            "4242 4242 4242 4241",
            json!({"type": "card_error", "code": "incorrect_number",
                   "message": "Your card number is incorrect."}),
        ),
    ] {
        let (status, body) = confirm(card, intent["clientSecret"].clone()).await;
        assert_eq!(status, StatusCode::PAYMENT_REQUIRED, "{card}: {body}");
        assert_eq!(body, json!({ "error": error }), "{card}");
        assert_eq!(
            states().await,
            ("failed".to_owned(), "requires_payment_method".to_owned()),
            "{card}: the order is unpaid, the payment still payable"
        );
        let (status, body) = download().await;
        assert_eq!(status, StatusCode::PAYMENT_REQUIRED, "{card}: {body}");
        assert_eq!(body["isPaid"], false, "{card}: {body}");
    }

    // A good card with a wrong secret is still refused, and pays nothing.
    let (status, body) = confirm("4242 4242 4242 4242", json!("pi_sim_x_secret_wrong")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(states().await.0, "failed");

    let (status, body) = confirm("4242 4242 4242 4242", intent["clientSecret"].clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"status": "succeeded", "orderId": order}));
    assert_eq!(states().await, ("paid".to_owned(), "succeeded".to_owned()));
    let (status, body) = download().await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["isPaid"], true);
    assert_eq!(body["downloadUrl"], "https://workspace.test/cards");

    // No card number (or part of one) is stored with the payment.
    let stored: String = sqlx::query_scalar(
        "select row_to_json(p)::text from functions.simulated_payments p where id = $1",
    )
    .bind(&payment)
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    for digits in [
        "4242424242424242",
        "4000000000000002",
        "4000000000009995",
        "4000000000000119",
    ] {
        assert!(!stored.contains(digits), "{digits} stored: {stored}");
    }
}
