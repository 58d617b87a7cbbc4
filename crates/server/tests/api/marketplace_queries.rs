//! The calls of spec section 7 ("Reads" and "Writes"), as the app makes them
//! through the REST gateway, answered on the demo data (`seed/demo.sql`).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::marketplace_support::*;

const MAYA: &str = "d0000000-0000-4000-8000-000000000001";
const LEO: &str = "d0000000-0000-4000-8000-000000000002";
const AVA: &str = "d0000000-0000-4000-8000-000000000003";
const ADMIN: &str = "d0000000-0000-4000-8000-000000000005";
const JO: &str = "d0000000-0000-4000-8000-000000000006";

fn e(n: u32) -> String {
    format!("e0000000-0000-4000-8000-{n:012}")
}
fn user(id: &str) -> Actor {
    Actor::User(id.parse().unwrap())
}

async fn demo() -> TestApp {
    let app = spawn_marketplace().await;
    load_demo(&app).await;
    app
}

async fn head_count(app: &TestApp, actor: Actor, path: &str) -> i64 {
    let answer = rest(app, actor, Method::HEAD, path, None, "count=exact").await;
    assert!(answer.status.is_success(), "HEAD {path}: {}", answer.status);
    answer.count()
}

const LIST: &str = "templates?select=id,title,description,preview_image_url,template_file_url,price,downloads_count,created_at,updated_at,tags,features_included,requirements,category_id,user_id,is_published&is_published=eq.true";

#[tokio::test]
async fn categories_and_the_published_list_with_filters_and_sorts() {
    let app = demo().await;
    let categories = rows(&app, Actor::Anon, "categories?select=*&order=name.asc").await;
    let names: Vec<&str> = categories
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Business",
            "Education",
            "Finance",
            "Health & Fitness",
            "Personal",
            "Productivity"
        ]
    );
    let one = rest_with(
        &app,
        Actor::Anon,
        Method::GET,
        "categories?select=*&slug=eq.health-fitness",
        None,
        &[("accept", "application/vnd.pgrst.object+json")],
    )
    .await;
    assert_eq!(one.ok()["name"], "Health & Fitness");
    let health_fitness = one.ok().clone();
    let missing = rest_with(
        &app,
        Actor::Anon,
        Method::GET,
        "categories?select=*&slug=eq.nope",
        None,
        &[("accept", "application/vnd.pgrst.object+json")],
    )
    .await;
    assert_eq!(
        (missing.status, missing.body["code"].clone()),
        (StatusCode::NOT_ACCEPTABLE, json!("PGRST116"))
    );
    let by_ids = rows(
        &app,
        Actor::Anon,
        &format!(
            "categories?select=id,name,slug&id=in.({},{})",
            categories[0]["id"].as_str().unwrap(),
            categories[1]["id"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(by_ids.len(), 2);

    // Newest first, the default; the whole published list.
    let newest = rows(&app, Actor::Anon, &format!("{LIST}&order=created_at.desc")).await;
    assert_eq!(ids(&newest), [11, 10, 8, 6, 9, 7, 4, 5, 3, 2, 1].map(e));
    assert!(newest.iter().all(|t| t["is_published"] == json!(true)));
    let oldest = rows(&app, Actor::Anon, &format!("{LIST}&order=created_at.asc")).await;
    assert_eq!(ids(&oldest), [1, 2, 3, 5, 4, 7, 9, 6, 8, 10, 11].map(e));
    let popular = rows(
        &app,
        Actor::Anon,
        &format!("{LIST}&order=downloads_count.desc"),
    )
    .await;
    assert_eq!(ids(&popular), [7, 1, 5, 4, 10, 9, 3, 2, 8, 6, 11].map(e));
    let high = rows(&app, Actor::Anon, &format!("{LIST}&order=price.desc")).await;
    assert_eq!(ids(&high)[..6], [3, 2, 6, 8, 9, 11].map(e));
    let low = rows(&app, Actor::Anon, &format!("{LIST}&order=price.asc")).await;
    let prices: Vec<f64> = low.iter().map(|t| num(&t["price"])).collect();
    assert_eq!(
        prices,
        [0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 5.0, 7.0, 9.5, 12.0, 19.0]
    );

    // Filters: price, category, search (title or description, any case).
    let free = rows(
        &app,
        Actor::Anon,
        &format!("{LIST}&price=eq.0&order=created_at.desc"),
    )
    .await;
    assert_eq!(ids(&free), [10, 7, 4, 5, 1].map(e));
    let paid = rows(&app, Actor::Anon, &format!("{LIST}&price=gt.0")).await;
    assert_eq!(paid.len(), 6);
    let health = health_fitness["id"].as_str().unwrap();
    let in_health = rows(
        &app,
        Actor::Anon,
        &format!("{LIST}&category_id=eq.{health}&order=created_at.desc"),
    )
    .await;
    assert_eq!(ids(&in_health), [8, 7].map(e));
    let search = rows(
        &app,
        Actor::Anon,
        &format!(
            "{LIST}&or=(title.ilike.*PLANNER*,description.ilike.*PLANNER*)&order=created_at.desc"
        ),
    )
    .await;
    assert_eq!(ids(&search), [11, 6, 9, 1].map(e));
    let by_description = rows(
        &app,
        Actor::Anon,
        &format!("{LIST}&or=(title.ilike.*streaks*,description.ilike.*streaks*)"),
    )
    .await;
    assert_eq!(ids(&by_description), [e(7)]);
    let combined = rows(&app, Actor::Anon, &format!("{LIST}&category_id=eq.{health}&price=gt.0&or=(title.ilike.*log*,description.ilike.*log*)")).await;
    assert_eq!(ids(&combined), [e(8)]);

    // Profiles and categories of the list, read by ids and merged in.
    let authors = rows(
        &app,
        Actor::Anon,
        &format!("profiles?select=id,avatar_url,display_name,username&id=in.({MAYA},{LEO})"),
    )
    .await;
    assert_eq!(authors.len(), 2);
}

#[tokio::test]
async fn most_popular_trending_and_home_statistics() {
    let app = demo().await;
    let popular = rows(&app, Actor::Anon, "template_upvote_counts?select=template_id,upvote_count&upvote_count=gte.2&order=upvote_count.desc").await;
    let counts: Vec<i64> = popular
        .iter()
        .map(|r| r["upvote_count"].as_i64().unwrap())
        .collect();
    assert_eq!(counts, [6, 6, 5, 5, 5, 4, 4, 4, 4, 3, 3]);
    let id_list: Vec<&str> = popular
        .iter()
        .map(|r| r["template_id"].as_str().unwrap())
        .collect();
    let templates = rows(
        &app,
        Actor::Anon,
        &format!("{LIST}&id=in.({})", id_list.join(",")),
    )
    .await;
    assert_eq!(templates.len(), 11);

    let trending = rows(
        &app,
        Actor::Anon,
        "template_upvote_counts?select=*&order=upvote_count.desc,latest_upvote_at.desc&limit=3",
    )
    .await;
    let trending_ids: Vec<&str> = trending
        .iter()
        .map(|r| r["template_id"].as_str().unwrap())
        .collect();
    assert_eq!(trending_ids, [e(9), e(2), e(1)]);
    assert_eq!(trending[0]["category_slug"], "finance");
    assert_eq!(trending[0]["category_name"], "Finance");
    assert!(trending[0]["category_id"].is_string() && trending[0]["latest_upvote_at"].is_string());
    let trending_templates = rows(
        &app,
        Actor::Anon,
        &format!("{LIST}&id=in.({})", trending_ids.join(",")),
    )
    .await;
    assert_eq!(trending_templates.len(), 3);

    assert_eq!(
        head_count(&app, Actor::Anon, "templates?select=*&is_published=eq.true").await,
        11
    );
    assert_eq!(head_count(&app, Actor::Anon, "profiles?select=*").await, 7);
    let downloads = rows(
        &app,
        Actor::Anon,
        "templates?select=downloads_count&is_published=eq.true",
    )
    .await;
    assert_eq!(
        downloads
            .iter()
            .map(|r| r["downloads_count"].as_i64().unwrap())
            .sum::<i64>(),
        7235
    );

    let mut per_category = Vec::new();
    for c in rows(
        &app,
        Actor::Anon,
        "categories?select=id,slug&order=name.asc",
    )
    .await
    {
        let n = head_count(
            &app,
            Actor::Anon,
            &format!(
                "templates?select=id&is_published=eq.true&category_id=eq.{}",
                c["id"].as_str().unwrap()
            ),
        )
        .await;
        per_category.push((c["slug"].as_str().unwrap().to_owned(), n));
    }
    let expected = [
        ("business", 2),
        ("education", 2),
        ("finance", 1),
        ("health-fitness", 2),
        ("personal", 2),
        ("productivity", 2),
    ];
    assert_eq!(per_category, expected.map(|(s, n)| (s.to_owned(), n)));
}

#[tokio::test]
async fn creators_profiles_and_suggestions() {
    let app = demo().await;
    // Creators page: all profiles newest first, with their published templates.
    let profiles = rows(&app, Actor::Anon, "profiles?select=*&order=created_at.desc").await;
    let names: Vec<&str> = profiles
        .iter()
        .map(|p| p["username"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "kimnovak",
            "jopark",
            "samfit",
            "ava_studies",
            "leo-builds",
            "mayachen",
            "demo-admin"
        ]
    );
    let published = rows(
        &app,
        Actor::Anon,
        "templates?select=user_id,downloads_count&is_published=eq.true",
    )
    .await;
    let of = |id: &str| {
        published
            .iter()
            .filter(|t| t["user_id"] == json!(id))
            .map(|t| t["downloads_count"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!((of(MAYA).len(), of(MAYA).iter().sum::<i64>()), (3, 2190));
    assert_eq!((of(LEO).len(), of(LEO).iter().sum::<i64>()), (2, 1280));
    let creators = profiles
        .iter()
        .filter(|p| !of(p["id"].as_str().unwrap()).is_empty())
        .count();
    assert_eq!(creators, 4);

    // Profile by username, else by id.
    let object = [("accept", "application/vnd.pgrst.object+json")];
    let leo = rest_with(
        &app,
        Actor::Anon,
        Method::GET,
        "profiles?select=*&username=eq.leo-builds",
        None,
        &object,
    )
    .await;
    assert_eq!(leo.ok()["id"], LEO);
    assert_eq!(leo.ok()["display_name"], "Leo Martins");
    assert_eq!(
        leo.ok()["social_links"],
        json!({"github": "https://example.com/leo"})
    );
    let by_id = rest_with(
        &app,
        Actor::Anon,
        Method::GET,
        &format!("profiles?select=*&id=eq.{LEO}"),
        None,
        &object,
    )
    .await;
    assert_eq!(by_id.ok()["username"], "leo-builds");
    let mine = rows(
        &app,
        Actor::Anon,
        &format!("templates?select=*&user_id=eq.{MAYA}&status=eq.published&order=created_at.desc"),
    )
    .await;
    assert_eq!(ids(&mine), [9, 2, 1].map(e));
    let pending = rows(
        &app,
        user(AVA),
        &format!("templates_pending_approval?select=*&creator_id=eq.{AVA}"),
    )
    .await;
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["title"], "Exam Countdown");
    let stats = rest_with(
        &app,
        Actor::Anon,
        Method::GET,
        &format!("creator_statistics?select=*&id=eq.{MAYA}"),
        None,
        &object,
    )
    .await;
    let s = stats.ok();
    assert_eq!(
        (
            s["templates_count"].clone(),
            s["total_downloads"].clone(),
            s["total_upvotes"].clone()
        ),
        (json!(3), json!(2190), json!(17))
    );
    assert_eq!(num(&s["rating"]), 4.2);
    assert_eq!(num(&s["weekly_growth_percentage"]), -11.1);
    assert_eq!(s["categories"], json!(["Finance", "Productivity"]));
    let nobody = rows(
        &app,
        Actor::Anon,
        &format!("creator_statistics?select=*&id=eq.{JO}"),
    )
    .await;
    assert_eq!(
        (
            nobody[0]["templates_count"].clone(),
            num(&nobody[0]["rating"])
        ),
        (json!(0), 0.0)
    );

    // Template detail with category and author; its upvote count. A bare
    // `profiles(...)` embed is ambiguous (upvotes and wishlist also join
    // templates to profiles): PostgREST answers 300 PGRST201, so the app
    // names the foreign key.
    let ambiguous = get(
        &app,
        Actor::Anon,
        &format!("templates?select=*,profiles(id)&id=eq.{}", e(3)),
    )
    .await;
    assert_eq!(
        (ambiguous.status.as_u16(), ambiguous.body["code"].clone()),
        (300, json!("PGRST201"))
    );
    let detail = rest_with(&app, Actor::Anon, Method::GET,
        &format!("templates?select=*,categories(id,name,slug),profiles!templates_user_id_fkey(id,username,display_name,avatar_url)&id=eq.{}&is_published=eq.true", e(3)),
        None, &object).await;
    let d = detail.ok();
    assert_eq!(
        (
            d["title"].clone(),
            d["categories"]["slug"].clone(),
            d["profiles"]["username"].clone()
        ),
        (json!("Startup CRM"), json!("business"), json!("leo-builds"))
    );
    assert_eq!(
        (num(&d["average_rating"]), d["total_ratings"].clone()),
        (3.5, json!(2))
    );
    let upvotes = rows(
        &app,
        Actor::Anon,
        &format!(
            "template_upvote_counts?select=upvote_count&template_id=eq.{}",
            e(3)
        ),
    )
    .await;
    assert_eq!(upvotes[0]["upvote_count"], 5);
    // The signed-in user's order for it: none, PGRST116 (which the app ignores).
    let order = rest_with(
        &app,
        user(JO),
        Method::GET,
        &format!("orders?select=*&buyer_id=eq.{JO}&product_id=eq.{}", e(3)),
        None,
        &object,
    )
    .await;
    assert_eq!(
        (order.status, order.body["code"].clone()),
        (StatusCode::NOT_ACCEPTABLE, json!("PGRST116"))
    );

    // Suggestions for e1 (productivity, by Maya): same category, then same author, then others.
    let base = "templates?select=id,title,category_id,user_id&is_published=eq.true";
    let productivity = rows(
        &app,
        Actor::Anon,
        "categories?select=id&slug=eq.productivity",
    )
    .await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let same_category = rows(
        &app,
        Actor::Anon,
        &format!(
            "{base}&category_id=eq.{productivity}&id=neq.{}&limit=3",
            e(1)
        ),
    )
    .await;
    assert_eq!(ids(&same_category), [e(2)]);
    let same_author = rows(
        &app,
        Actor::Anon,
        &format!(
            "{base}&user_id=eq.{MAYA}&id=not.in.({},{})&limit=2",
            e(1),
            e(2)
        ),
    )
    .await;
    assert_eq!(ids(&same_author), [e(9)]);
    let others = rows(
        &app,
        Actor::Anon,
        &format!("{base}&id=not.in.({},{},{})&limit=1", e(1), e(2), e(9)),
    )
    .await;
    assert_eq!(others.len(), 1);
    assert!(![e(1), e(2), e(9)].contains(&ids(&others)[0]));
}

#[tokio::test]
async fn admin_and_dashboard_reads() {
    let app = demo().await;
    let admin = user(ADMIN);
    assert_eq!(
        rows(&app, admin, &format!("admins?select=*&user_id=eq.{ADMIN}"))
            .await
            .len(),
        1
    );
    assert!(
        rows(
            &app,
            user(MAYA),
            &format!("admins?select=*&user_id=eq.{MAYA}")
        )
        .await
        .is_empty()
    );
    let pending = rows(&app, admin, "templates_pending_approval?select=*,categories(name,slug)&status=eq.Pending%20Approval&order=created_at.desc").await;
    assert_eq!(
        ids(&pending),
        [
            "f1000000-0000-4000-8000-000000000001",
            "f1000000-0000-4000-8000-000000000002"
        ]
    );
    assert_eq!(
        pending[0]["categories"],
        json!({"name": "Education", "slug": "education"})
    );
    assert_eq!(
        pending[1]["categories"],
        json!({"name": "Health & Fitness", "slug": "health-fitness"})
    );
    let week_ago = (chrono_now_minus_days(7)).to_string();
    let this_week = rows(&app, admin, &format!("templates_pending_approval?select=id&status=eq.Pending%20Approval&created_at=gte.{week_ago}")).await;
    assert_eq!(this_week.len(), 1);
    let one = rest_with(
        &app,
        admin,
        Method::GET,
        "templates_pending_approval?select=*&id=eq.f1000000-0000-4000-8000-000000000002",
        None,
        &[("accept", "application/vnd.pgrst.object+json")],
    )
    .await;
    assert_eq!(one.ok()["title"], "Meal Prep Planner");
    let creator = rows(
        &app,
        admin,
        &format!(
            "profiles?select=display_name,username&id=eq.{}",
            one.ok()["creator_id"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(creator[0]["username"], "samfit");
    // A non-admin sees only their own pending rows.
    assert!(
        rows(
            &app,
            user(MAYA),
            "templates_pending_approval?select=*&status=eq.Pending%20Approval"
        )
        .await
        .is_empty()
    );

    // Dashboard of Leo: his templates' figures, the four counts, upvotes and wishlists.
    let leo = user(LEO);
    let mine = rows(&app, leo, &format!("templates?select=id,downloads_count,total_views,average_rating,total_ratings&user_id=eq.{LEO}")).await;
    assert_eq!(mine.len(), 2);
    assert_eq!(
        mine.iter()
            .map(|t| t["downloads_count"].as_i64().unwrap())
            .sum::<i64>(),
        1280
    );
    assert_eq!(
        mine.iter()
            .map(|t| t["total_views"].as_i64().unwrap())
            .sum::<i64>(),
        7200
    );
    let rated: Vec<f64> = mine
        .iter()
        .map(|t| num(&t["average_rating"]))
        .filter(|r| *r > 0.0)
        .collect();
    let avg = (rated.iter().sum::<f64>() / rated.len() as f64 * 10.0).round() / 10.0;
    assert_eq!(avg, 3.8);
    assert_eq!(
        head_count(
            &app,
            leo,
            &format!("templates_draft?select=*&creator_id=eq.{LEO}")
        )
        .await,
        1
    );
    assert_eq!(
        head_count(
            &app,
            leo,
            &format!("templates?select=*&user_id=eq.{LEO}&is_published=eq.true")
        )
        .await,
        2
    );
    assert_eq!(
        head_count(
            &app,
            leo,
            &format!("templates_pending_approval?select=*&creator_id=eq.{LEO}")
        )
        .await,
        0
    );
    assert_eq!(
        head_count(
            &app,
            leo,
            &format!("templates_rejected?select=*&creator_id=eq.{LEO}")
        )
        .await,
        1
    );
    let id_list = format!("{},{}", e(3), e(4));
    assert_eq!(
        rows(
            &app,
            leo,
            &format!("template_upvotes?select=template_id&template_id=in.({id_list})")
        )
        .await
        .len(),
        9
    );
    assert_eq!(
        rows(
            &app,
            leo,
            &format!("wishlist?select=template_id&template_id=in.({id_list})")
        )
        .await
        .len(),
        0
    );

    // My templates: drafts by last edit, rejected by date.
    let drafts = rows(
        &app,
        leo,
        &format!("templates_draft?select=*&creator_id=eq.{LEO}&order=last_edited_at.desc"),
    )
    .await;
    assert_eq!(drafts[0]["title"], "Investor Updates");
    let rejected = rows(
        &app,
        leo,
        &format!("templates_rejected?select=*&creator_id=eq.{LEO}&order=rejection_date.desc"),
    )
    .await;
    assert_eq!(rejected[0]["title"], "Quick Invoice");
    assert!(
        rejected[0]["rejection_comment"]
            .as_str()
            .unwrap()
            .starts_with("The preview images are missing")
    );
}

fn chrono_now_minus_days(days: u64) -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - days * 86400;
    // An RFC 3339 timestamp PostgreSQL parses: epoch seconds via to_timestamp is not a literal, so format by hand.
    let days_since = secs / 86400;
    let (y, m, d) = civil_from_days(days_since as i64);
    let rem = secs % 86400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[tokio::test]
async fn the_writes_of_the_app() {
    let app = demo().await;
    let me = create_user(&app, "newbie@test.dev", "Newbie").await;
    let actor = Actor::User(me);
    let count_of = |t: u32| {
        let app = &app;
        async move {
            rows(
                app,
                Actor::Anon,
                &format!(
                    "template_upvote_counts?select=upvote_count&template_id=eq.{}",
                    e(t)
                ),
            )
            .await[0]["upvote_count"]
                .as_i64()
                .unwrap()
        }
    };

    // Follow and unfollow.
    let followed = rest(
        &app,
        actor,
        Method::POST,
        "followers",
        Some(json!({"follower_id": me, "following_id": JO})),
        "",
    )
    .await;
    assert_eq!(followed.status, StatusCode::CREATED, "{}", followed.body);
    assert_eq!(
        rpc(
            &app,
            Actor::Anon,
            "get_follower_count",
            json!({"user_id": JO})
        )
        .await
        .ok(),
        &json!(1)
    );
    let unfollowed = rest(
        &app,
        actor,
        Method::DELETE,
        &format!("followers?follower_id=eq.{me}&following_id=eq.{JO}"),
        None,
        "",
    )
    .await;
    assert_eq!(unfollowed.status, StatusCode::NO_CONTENT);
    assert_eq!(
        rpc(
            &app,
            Actor::Anon,
            "get_follower_count",
            json!({"user_id": JO})
        )
        .await
        .ok(),
        &json!(0)
    );

    // Upvote and remove it.
    assert_eq!(count_of(11).await, 4);
    let up = rest(
        &app,
        actor,
        Method::POST,
        "template_upvotes",
        Some(json!({"template_id": e(11), "user_id": me})),
        "",
    )
    .await;
    assert_eq!(up.status, StatusCode::CREATED, "{}", up.body);
    assert_eq!(count_of(11).await, 5);
    let mine = rows(
        &app,
        actor,
        &format!(
            "template_upvotes?select=*&template_id=eq.{}&user_id=eq.{me}",
            e(11)
        ),
    )
    .await;
    assert_eq!(mine.len(), 1);
    rest(
        &app,
        actor,
        Method::DELETE,
        &format!("template_upvotes?template_id=eq.{}&user_id=eq.{me}", e(11)),
        None,
        "",
    )
    .await
    .ok();
    assert_eq!(count_of(11).await, 4);

    // Wishlist add, read with the joined template, remove.
    let added = rest(
        &app,
        actor,
        Method::POST,
        "wishlist",
        Some(json!({"template_id": e(3), "user_id": me})),
        "",
    )
    .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);
    let list = rows(
        &app,
        actor,
        &format!("wishlist?select=*,templates(*)&user_id=eq.{me}"),
    )
    .await;
    assert_eq!(list.len(), 1);
    assert_eq!(
        (
            list[0]["templates"]["title"].clone(),
            num(&list[0]["templates"]["price"])
        ),
        (json!("Startup CRM"), 19.0)
    );
    rest(
        &app,
        actor,
        Method::DELETE,
        &format!("wishlist?template_id=eq.{}&user_id=eq.{me}", e(3)),
        None,
        "",
    )
    .await
    .ok();
    assert!(
        rows(&app, actor, &format!("wishlist?select=*&user_id=eq.{me}"))
            .await
            .is_empty()
    );

    // Rating upsert on (template_id, user_id): Startup CRM had 2 ratings averaging 3.5.
    for (stars, review) in [(5, json!("Great")), (2, Value::Null)] {
        let r = rest(
            &app,
            actor,
            Method::POST,
            "template_ratings?on_conflict=template_id,user_id",
            Some(
                json!({"template_id": e(3), "user_id": me, "rating": stars, "review_text": review}),
            ),
            "resolution=merge-duplicates",
        )
        .await;
        assert!(r.status.is_success(), "{} {}", r.status, r.body);
    }
    let t = rows(
        &app,
        Actor::Anon,
        &format!(
            "templates?select=average_rating,total_ratings&id=eq.{}",
            e(3)
        ),
    )
    .await;
    assert_eq!(
        (num(&t[0]["average_rating"]), t[0]["total_ratings"].clone()),
        (3.0, json!(3))
    );
    let my_rating = rest_with(
        &app,
        actor,
        Method::GET,
        &format!(
            "template_ratings?select=*&template_id=eq.{}&user_id=eq.{me}",
            e(3)
        ),
        None,
        &[("accept", "application/vnd.pgrst.object+json")],
    )
    .await;
    assert_eq!(
        (
            my_rating.ok()["rating"].clone(),
            my_rating.ok()["review_text"].clone()
        ),
        (json!(2), Value::Null)
    );

    // Profile updates, one field at a time as the screens do.
    for body in [
        json!({"avatar_url": format!("{me}/1700000000000-abc.png")}),
        json!({"username": "newbie"}),
        json!({"display_name": "New Bie"}),
        json!({"bio": "Hello"}),
        json!({"social_links": {"twitter": "https://example.com/@n", "github": "https://example.com/n"}}),
    ] {
        let r = rest(
            &app,
            actor,
            Method::PATCH,
            &format!("profiles?id=eq.{me}"),
            Some(body.clone()),
            "",
        )
        .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{body}: {}", r.body);
    }
    let p = rows(&app, Actor::Anon, &format!("profiles?select=*&id=eq.{me}")).await;
    assert_eq!(
        (
            p[0]["username"].clone(),
            p[0]["display_name"].clone(),
            p[0]["bio"].clone()
        ),
        (json!("newbie"), json!("New Bie"), json!("Hello"))
    );
    assert_eq!(p[0]["social_links"]["github"], "https://example.com/n");

    // A draft: insert the upload form's payload, read it back by id and creator, update it.
    let category =
        rows(&app, Actor::Anon, "categories?select=id&slug=eq.finance").await[0]["id"].clone();
    let payload = json!({
        "creator_id": me, "title": "Tax Organizer", "description": "Receipts and deductions",
        "about_template": "## Taxes\n\nAll in one place.", "price": 2.5, "price_in_cents": 250,
        "category_id": category, "tags": ["tax", "money"], "features_included": ["Template file"],
        "requirements": ["A free workspace-app account"], "preview_image_url": format!("{me}/previews/1-a.png"),
        "preview_images": [format!("{me}/previews/2-b.png")], "template_file_url": format!("templates/{me}/templates/3-c.zip"),
        "last_edited_at": "2026-11-20T10:00:00Z",
    });
    let inserted = rest(
        &app,
        actor,
        Method::POST,
        "templates_draft",
        Some(payload),
        "return=representation",
    )
    .await;
    assert_eq!(inserted.status, StatusCode::CREATED, "{}", inserted.body);
    let draft = inserted.rows()[0]["id"].as_str().unwrap().to_owned();
    let read = rows(
        &app,
        actor,
        &format!("templates_draft?select=*&id=eq.{draft}&creator_id=eq.{me}"),
    )
    .await;
    assert_eq!(
        (read[0]["title"].clone(), read[0]["price_in_cents"].clone()),
        (json!("Tax Organizer"), json!(250))
    );
    let updated = rest(&app, actor, Method::PATCH, &format!("templates_draft?id=eq.{draft}"),
        Some(json!({"title": "Tax Organizer 2", "price": 3, "price_in_cents": 300, "last_edited_at": "2026-11-21T10:00:00Z"})), "return=representation").await;
    assert_eq!(updated.status, StatusCode::OK, "{}", updated.body);
    assert_eq!(
        (
            updated.rows()[0]["title"].clone(),
            updated.rows()[0]["price_in_cents"].clone()
        ),
        (json!("Tax Organizer 2"), json!(300))
    );

    // Edit template (owner): the fields of the edit screen; price_in_cents follows price.
    let maya = user(MAYA);
    let edited = rest(
        &app,
        maya,
        Method::PATCH,
        &format!("templates?id=eq.{}&user_id=eq.{MAYA}", e(2)),
        Some(
            json!({"title": "Second Brain", "description": "PARA notes", "about_template": "About",
                    "price": 15.5, "tags": ["notes"], "features_included": ["Template file"],
                    "requirements": ["An account"], "updated_at": "2026-11-21T10:00:00Z"}),
        ),
        "return=representation",
    )
    .await;
    assert_eq!(edited.status, StatusCode::OK, "{}", edited.body);
    let t = &edited.rows()[0];
    assert_eq!(
        (
            t["title"].clone(),
            num(&t["price"]),
            t["price_in_cents"].clone()
        ),
        (json!("Second Brain"), 15.5, json!(1550))
    );
    assert_eq!(t["downloads_count"], 310, "counters untouched");
    // Someone else's template is not theirs to edit.
    let foreign = rest(
        &app,
        maya,
        Method::PATCH,
        &format!("templates?id=eq.{}", e(3)),
        Some(json!({"title": "Mine now"})),
        "return=representation",
    )
    .await;
    assert_eq!((foreign.status, foreign.rows().len()), (StatusCode::OK, 0));
}
