//! New versions of published templates (issue 44, item 6:
//! migrations/20261128000200_template_versions.sql): `add_template_version`
//! through the REST gateway with real JWTs. Only the template's creator adds
//! a version; a paid template's new file must be private and stays out of
//! the public row; previews are the creator's own uploads, kept as this
//! site's path; a new file clears the orders' remembered links.

use serde_json::json;
use uuid::Uuid;

use crate::marketplace_support::*;

/// A stored object row (bytes are not needed: the function checks the row).
async fn object(app: &crate::helpers::TestApp, bucket: &str, name: &str, owner: Uuid) {
    sqlx::query(
        "insert into storage.objects (bucket_id, name, owner, owner_id, version) values ($1, $2, $3, $3::text, 'v')",
    )
    .bind(bucket)
    .bind(name)
    .bind(owner)
    .execute(owner_pool(app))
    .await
    .unwrap();
}

#[tokio::test]
async fn only_the_creator_adds_a_version_and_it_replaces_what_buyers_get() {
    let app = spawn_marketplace().await;
    let pool = owner_pool(&app);
    let owner = create_user(&app, "creator@test.dev", "Creator").await;
    let other = create_user(&app, "other@test.dev", "Other").await;
    let admin = create_user(&app, "admin@test.dev", "Admin").await;
    make_admin(&app, admin).await;
    let category = category_id(&app, "productivity").await;
    let paid = published_template(&app, owner, "Paid Planner", category, 9.0).await;
    let v1 = format!("template-files/{owner}/files/1-a/v1.zip");
    sqlx::query("update public.templates set template_file_url = $2 where id = $1")
        .bind(paid)
        .bind(&v1)
        .execute(pool)
        .await
        .unwrap();
    let order: Uuid = sqlx::query_scalar(
        "insert into public.orders (product_id, buyer_id, buyer_email, price_in_cents, payment_status, download_url)
         values ($1, $2, 'other@test.dev', 900, 'paid', 'https://old.example/link') returning id",
    )
    .bind(paid)
    .bind(other)
    .fetch_one(pool)
    .await
    .unwrap();
    let v2 = format!("{owner}/files/2-b/v2.zip");
    object(&app, "template-files", &v2, owner).await;
    object(
        &app,
        "templates",
        &format!("{owner}/files/2-b/v2.zip"),
        owner,
    )
    .await;
    object(
        &app,
        "templates",
        &format!("{owner}/previews/cover.png"),
        owner,
    )
    .await;
    let other_file = format!("{other}/files/x/theirs.zip");
    object(&app, "template-files", &other_file, other).await;
    let add = |payload: serde_json::Value| {
        let mut body = json!({"template_id": paid, "changelog": "Fixed the weekly view"});
        body.as_object_mut()
            .unwrap()
            .extend(payload.as_object().unwrap().clone());
        body
    };
    let new_file = json!({"new_file": format!("template-files/{v2}")});

    // Nobody but the creator: not a buyer, not an admin, not a visitor, even
    // with a preview of their own (which passes every other check).
    for (actor, user) in [
        (Actor::User(other), Some(other)),
        (Actor::User(admin), Some(admin)),
        (Actor::Anon, None),
    ] {
        let mut payload = json!({});
        if let Some(user) = user {
            let name = format!("{user}/previews/own.png");
            object(&app, "templates", &name, user).await;
            payload["new_preview_image_url"] = json!(format!("templates/{name}"));
        }
        let refused = rpc(&app, actor, "add_template_version", add(payload)).await;
        assert!(
            refused.status == 401 || refused.status == 403,
            "{actor:?}: {} {}",
            refused.status,
            refused.body
        );
        assert_eq!(refused.body["code"], "42501", "{actor:?}: {}", refused.body);
        if user.is_some() {
            assert_eq!(
                refused.body["message"],
                "Only the template's creator can publish a new version of it.",
                "{actor:?}"
            );
        }
    }
    // The creator may not name someone else's file, nor a public file for a paid template.
    let foreign = rpc(
        &app,
        Actor::User(owner),
        "add_template_version",
        add(json!({"new_file": format!("template-files/{other_file}")})),
    )
    .await;
    assert_eq!(foreign.status, 403, "{}", foreign.body);
    let public = rpc(
        &app,
        Actor::User(owner),
        "add_template_version",
        add(json!({"new_file": format!("templates/{owner}/files/2-b/v2.zip")})),
    )
    .await;
    assert_eq!(public.status, 400, "{}", public.body);
    // A preview not uploaded by the creator is refused; nothing at all to change is too.
    let preview = rpc(
        &app,
        Actor::User(owner),
        "add_template_version",
        add(json!({"new_preview_images": [format!("templates/{other}/previews/x.png")]})),
    )
    .await;
    assert_eq!(preview.status, 403, "{}", preview.body);
    let nothing = rpc(
        &app,
        Actor::User(owner),
        "add_template_version",
        add(json!({})),
    )
    .await;
    assert_eq!(nothing.status, 400, "{}", nothing.body);
    let versions: i64 = sqlx::query_scalar("select count(*) from public.template_versions")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(versions, 0, "no refused call added a version");

    // The creator adds version 2: the new file, private; a new cover as this site's path.
    let mut payload = new_file.clone();
    payload["new_preview_image_url"] = json!(format!(
        "https://elsewhere.example/storage/v1/object/public/templates/{owner}/previews/cover.png"
    ));
    let made = rpc(
        &app,
        Actor::User(owner),
        "add_template_version",
        add(payload),
    )
    .await;
    assert_eq!(made.status, 200, "{}", made.body);
    assert_eq!(made.body["version"], 2);
    assert_eq!(made.body["changelog"], "Fixed the weekly view");
    let (public_file, cover, kept): (Option<String>, Option<String>, Option<String>) =
        sqlx::query_as(
            "select t.template_file_url, t.preview_image_url, l.template_file_url
           from public.templates t left join public.paid_template_links l on l.template_id = t.id
          where t.id = $1",
        )
        .bind(paid)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(public_file, None, "a paid file stays out of the public row");
    assert_eq!(
        kept.as_deref(),
        Some(format!("template-files/{v2}").as_str())
    );
    assert_eq!(
        cover.as_deref(),
        Some(format!("/storage/v1/object/public/templates/{owner}/previews/cover.png").as_str())
    );
    let remembered: Option<String> =
        sqlx::query_scalar("select download_url from public.orders where id = $1")
            .bind(order)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(remembered, None, "the order's old link is gone");

    // Everyone who reads the template reads its versions (the file's name, no path).
    let seen = rows(
        &app,
        Actor::Anon,
        &format!("template_versions?template_id=eq.{paid}&select=version,changelog,file_name,file_changed,previews_changed"),
    )
    .await;
    assert_eq!(
        seen,
        vec![
            json!({"version": 2, "changelog": "Fixed the weekly view", "file_name": "v2.zip",
                    "file_changed": true, "previews_changed": true})
        ]
    );
}
