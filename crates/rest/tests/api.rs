//! The gateway over HTTP against a real Postgres: one fresh database per
//! test (a copy of a template holding the platform SQL, the gateway's SQL
//! and the test schema below), served on 127.0.0.1:0, driven with raw HTTP
//! (reqwest) and with postgrest-rs as a real PostgREST client.

mod support;

use plinth_db::{JwtSecret, MigrationSet};
use plinth_rest::RestConfig;
use serde_json::{Value, json};
use support::{App, Res, default_config, now};

const ALICE: &str = "00000000-0000-0000-0000-00000000000a";
const BOB: &str = "00000000-0000-0000-0000-00000000000b";

/// The test schema: related tables (one join table), RLS policies, views,
/// functions, a second exposed schema.
const SCHEMA: &str = r#"
create table users (id uuid primary key, name text not null, email text unique);
create table categories (id serial primary key, name text not null unique);
create table posts (
  id serial primary key,
  author_id uuid not null references users(id),
  editor_id uuid references users(id),
  category_id int references categories(id),
  title text not null,
  body text,
  tags text[] not null default '{}',
  meta jsonb not null default '{}',
  published boolean not null default false,
  views int not null default 0,
  score numeric,
  during tstzrange
);
create table labels (id serial primary key, name text not null);
create table post_labels (
  post_id int not null references posts(id) on delete cascade,
  label_id int not null references labels(id),
  primary key (post_id, label_id)
);
create table todos (
  id serial primary key,
  owner uuid not null default auth.uid(),
  task text not null,
  done boolean not null default false,
  priority int default 3
);
create table secrets (id int primary key, value text);
revoke all on secrets from anon, authenticated;

alter table todos enable row level security;
create policy todos_own_select on todos for select to authenticated using (owner = auth.uid());
create policy todos_own_insert on todos for insert to authenticated with check (owner = auth.uid());
create policy todos_own_update on todos for update to authenticated using (owner = auth.uid());
create policy todos_own_delete on todos for delete to authenticated using (owner = auth.uid());

alter table posts enable row level security;
create policy posts_read on posts for select using (published or author_id = auth.uid());
create policy posts_insert on posts for insert to authenticated with check (author_id = auth.uid());
create policy posts_update on posts for update to authenticated using (author_id = auth.uid());
create policy posts_delete on posts for delete to authenticated using (author_id = auth.uid());

insert into users values
  ('00000000-0000-0000-0000-00000000000a', 'Alice', 'alice@example.com'),
  ('00000000-0000-0000-0000-00000000000b', 'Bob', 'bob@example.com'),
  ('00000000-0000-0000-0000-00000000000c', 'Carol', null);
insert into categories (name) values ('general'), ('tech');
insert into posts (author_id, editor_id, category_id, title, body, tags, meta, published, views, score, during) values
  ('00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-00000000000b', 1, 'Hello world', 'hello there world', '{intro,hello}', '{"lang":"en","stars":5}', true, 10, 1.5, '[2024-01-01,2024-02-01)'),
  ('00000000-0000-0000-0000-00000000000a', null, null, 'Draft', null, '{draft}', '{"lang":"de"}', false, 0, null, null),
  ('00000000-0000-0000-0000-00000000000b', '00000000-0000-0000-0000-00000000000a', 2, 'Rust tips', 'borrow checker wisdom', '{rust,tips}', '{"lang":"en","stars":3}', true, 30, 2.5, '[2024-03-01,2024-04-01)'),
  ('00000000-0000-0000-0000-00000000000b', null, 2, 'Postgres, tricks (and more)', 'The quick brown fox jumps', '{postgres}', '{}', true, 20, null, null);
insert into labels (name) values ('news'), ('howto'), ('unused');
insert into post_labels values (1, 1), (3, 2), (4, 2), (4, 1);
insert into todos (owner, task, done) values
  ('00000000-0000-0000-0000-00000000000a', 'buy milk', false),
  ('00000000-0000-0000-0000-00000000000a', 'write tests', true),
  ('00000000-0000-0000-0000-00000000000b', 'sleep', false);

create view published_posts as select id, author_id, title, views from posts where published;

create function add(a int, b int default 1) returns int language sql immutable as $$ select a + b $$;
create function posts_by(author uuid) returns setof posts language sql stable as $$ select * from posts where author_id = author order by id $$;
create function post_titles() returns table(id int, title text) language sql stable as $$ select id, title from posts order by id $$;
create function numbers(n int) returns setof int language sql immutable as $$ select generate_series(1, n) $$;
create function bump(post int) returns void language sql as $$ update posts set views = views + 1 where id = post $$;
create function fail(msg text) returns void language plpgsql as $$ begin raise exception '%', msg; end $$;
create function teapot() returns void language plpgsql as $$ begin raise sqlstate 'PT418' using message = 'I am a teapot'; end $$;
create function echo(jsonb) returns jsonb language sql immutable as $$ select $1 $$;
create function whoami() returns text language sql stable as $$ select coalesce(auth.uid()::text, 'nobody') || ':' || current_user $$;
create function with_header() returns int language plpgsql stable as $$
begin
  perform set_config('response.headers', '[{"X-Custom": "yes"}]', true);
  return 1;
end $$;
create function title_upper(posts) returns text language sql stable as $$ select upper($1.title) $$;
create function sum_of(a int, b int) returns int language sql immutable as $$ select a + b $$;
create function sum_of(x int) returns int language sql immutable as $$ select x $$;

-- Computed relationships: functions taking a row, returning rows of a table.
create function author_of(posts) returns setof users rows 1 language sql stable as $$ select * from users where id = $1.author_id $$;
create function written_posts(users) returns setof posts language sql stable as $$ select * from posts where author_id = $1.id $$;
create function first_label(posts) returns labels language sql stable as $$
  select l.* from labels l join post_labels pl on pl.label_id = l.id where pl.post_id = $1.id order by l.id limit 1 $$;

-- A partitioned table with a foreign key to posts.
create table readings (
  id int not null,
  post_id int not null references posts(id),
  taken date not null,
  value int not null,
  primary key (id, taken)
) partition by range (taken);
create table readings_2024 partition of readings for values from ('2024-01-01') to ('2025-01-01');
create table readings_2025 partition of readings for values from ('2025-01-01') to ('2026-01-01');
insert into readings values (1, 1, '2024-05-01', 10), (2, 3, '2025-02-01', 20), (3, 1, '2025-03-01', 30);

create function pay_up() returns void language plpgsql as $$
begin
  raise sqlstate 'PGRST' using
    message = '{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade your plan"}',
    detail = '{"status":402,"headers":{"X-Powered-By":"Nerd Rage"}}';
end $$;
create function bad_raise(which text) returns void language plpgsql as $$
begin
  if which = 'message' then
    raise sqlstate 'PGRST' using message = 'not json', detail = '{"status":400,"headers":{}}';
  elsif which = 'detail' then
    raise sqlstate 'PGRST' using message = '{"code":"1","message":"m"}';
  end if;
end $$;
create function current_tz() returns text language sql stable as $$ select current_setting('TimeZone') $$;

-- The execute stage: what a request's connection has prepared, and a write
-- that takes its time before answering.
create function prepared_here() returns bigint language sql volatile as $$ select count(*) from pg_prepared_statements $$;
create table marks (n int not null);
create function mark_slowly(n int) returns setof marks language plpgsql as $$
begin
  insert into marks values (n);
  perform pg_sleep(1.5);
  return query select * from marks where marks.n = mark_slowly.n;
end $$;

create table tallies (label text not null, n int not null);
insert into tallies values ('a', 1), ('b', 2), ('c', 3), ('d', 4);

create schema api;
grant usage on schema api to anon, authenticated, service_role;
create table api.notes (id serial primary key, body text not null);
insert into api.notes (body) values ('from api');
grant all on all tables in schema api to anon, authenticated, service_role;
grant all on all sequences in schema api to anon, authenticated, service_role;
"#;

fn test_schema() -> MigrationSet {
    MigrationSet::embedded(
        "rest_test",
        "crates/rest/tests",
        &[("0001_schema.sql", SCHEMA)],
    )
    .expect("test schema set")
}

async fn spawn_app() -> App {
    spawn_with(default_config()).await
}

async fn spawn_with(config: RestConfig) -> App {
    support::spawn_with(test_schema(), config).await
}

fn ids(v: &Value) -> Vec<i64> {
    v.as_array()
        .map(|a| a.iter().filter_map(|r| r["id"].as_i64()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn select_columns_aliases_casts_and_json_paths() {
    let app = spawn_app().await;
    let r = app.get("/posts?select=id,heading:title,views::text,lang:meta->>lang,stars:meta->stars&order=id").await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(r.header("content-range"), Some("0-2/*"));
    let body = r.json();
    assert_eq!(
        body[0],
        json!({"id": 1, "heading": "Hello world", "views": "10", "lang": "en", "stars": 5})
    );
    assert_eq!(ids(&body), vec![1, 3, 4], "anon sees published posts only");
    assert!(
        r.header("server-timing")
            .is_some_and(|t| t.contains("transaction;dur="))
    );

    let r = app.get("/posts?select=*&id=eq.1").await;
    let row = &r.json()[0];
    assert_eq!(row["tags"], json!(["intro", "hello"]));
    assert_eq!(row["meta"]["lang"], "en");

    // Computed column and views.
    let r = app.get("/posts?select=id,title_upper&id=eq.3").await;
    assert_eq!(r.json(), json!([{"id": 3, "title_upper": "RUST TIPS"}]));
    let r = app
        .get("/published_posts?select=title&order=views.desc&limit=1")
        .await;
    assert_eq!(r.json(), json!([{"title": "Rust tips"}]));
}

#[tokio::test]
async fn embedding_to_one_to_many_many_to_many_and_hints() {
    let app = spawn_app().await;
    let r = app
        .get("/posts?select=id,author:users!author_id(name),categories(name),labels(name)&order=id")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let body = r.json();
    assert_eq!(body[0]["author"], json!({"name": "Alice"}));
    assert_eq!(body[0]["categories"], json!({"name": "general"}));
    assert_eq!(body[0]["labels"], json!([{"name": "news"}]));
    let p4 = body
        .as_array()
        .and_then(|a| a.iter().find(|p| p["id"] == 4))
        .cloned()
        .unwrap_or_default();
    assert_eq!(p4["labels"].as_array().map(Vec::len), Some(2));

    // To-many with nested to-one, order and limit on the embed.
    let r = app
        .get("/users?select=name,posts!author_id(title,categories(name))&posts.order=title.desc&posts.limit=1&id=eq.00000000-0000-0000-0000-00000000000b")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"name": "Bob", "posts": [{"title": "Rust tips", "categories": {"name": "tech"}}]}])
    );

    // A missing to-one is null; a user without posts has [].
    let r = app
        .get("/posts?select=id,editor:users!editor_id(name)&id=eq.4")
        .await;
    assert_eq!(r.json(), json!([{"id": 4, "editor": null}]));
    let r = app
        .get("/users?select=name,posts!author_id(id)&name=eq.Carol")
        .await;
    assert_eq!(r.json(), json!([{"name": "Carol", "posts": []}]));

    // !inner: filters on the embed restrict the parent rows.
    let r = app
        .get("/posts?select=id,labels!inner(name)&labels.name=eq.howto&order=id")
        .await;
    assert_eq!(ids(&r.json()), vec![3, 4]);
    let r = app
        .get("/posts?select=id,labels(name)&labels.name=eq.howto&order=id")
        .await;
    assert_eq!(
        ids(&r.json()),
        vec![1, 3, 4],
        "without !inner the parent rows stay"
    );
    assert_eq!(r.json()[0]["labels"], json!([]));

    // Embedded filter `is.null` / `not.is.null` on the embed itself.
    let r = app
        .get("/posts?select=id,categories(name)&categories=not.is.null&order=id")
        .await;
    assert_eq!(ids(&r.json()), vec![1, 3, 4]);

    // Spread of a to-one.
    let r = app
        .get("/posts?select=title,...categories(category:name)&id=eq.3")
        .await;
    assert_eq!(
        r.json(),
        json!([{"title": "Rust tips", "category": "tech"}])
    );

    // Embedding through a view that carries the foreign key.
    let r = app
        .get("/published_posts?select=title,users(name)&id=eq.1")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"title": "Hello world", "users": {"name": "Alice"}}])
    );

    // Ambiguous and unknown relationships.
    let r = app.get("/posts?select=*,users(*)").await;
    assert_eq!(r.status, 300, "{}", r.text);
    assert_eq!(r.code(), "PGRST201");
    assert_eq!(r.json()["details"].as_array().map(Vec::len), Some(2));
    let r = app.get("/posts?select=*,nope(*)").await;
    assert_eq!((r.status, r.code()), (400, "PGRST200".to_owned()));
    let r = app.get("/posts?select=id&nope.id=eq.1").await;
    assert_eq!((r.status, r.code()), (400, "PGRST108".to_owned()));
}

#[tokio::test]
async fn horizontal_filters() {
    let app = spawn_app().await;
    let svc = app.service();
    let cases: &[(&str, &[i64])] = &[
        ("id=eq.3", &[3]),
        ("id=neq.3", &[1, 2, 4]),
        ("views=gt.10", &[3, 4]),
        ("views=gte.10", &[1, 3, 4]),
        ("views=lt.10", &[2]),
        ("views=lte.10", &[1, 2]),
        ("title=like.*tips*", &[3]),
        ("title=ilike.HELLO*", &[1]),
        ("title=match.^R", &[3]),
        ("title=imatch.^r", &[3]),
        ("editor_id=is.null", &[2, 4]),
        ("editor_id=not.is.null", &[1, 3]),
        ("published=is.false", &[2]),
        ("id=in.(1,4,99)", &[1, 4]),
        ("id=not.in.(1,4)", &[2, 3]),
        ("title=in.(\"Postgres, tricks (and more)\",Draft)", &[2, 4]),
        ("tags=cs.{rust}", &[3]),
        ("tags=cd.{rust,tips,other}", &[3]),
        ("tags=ov.{draft,postgres}", &[2, 4]),
        ("meta=cs.{\"lang\":\"en\"}", &[1, 3]),
        ("meta->>lang=eq.de", &[2]),
        ("meta->stars=gt.4", &[1]),
        ("during=sl.[2024-02-15,2024-02-20)", &[1]),
        ("during=sr.[2024-02-15,2024-02-20)", &[3]),
        ("during=adj.[2024-02-01,2024-03-01)", &[1, 3]),
        ("during=nxr.[2024-02-15,2024-02-20)", &[1]),
        ("during=nxl.[2024-02-15,2024-02-20)", &[3]),
        ("body=fts.quick%26fox", &[4]),
        ("body=plfts(english).quick brown", &[4]),
        ("body=phfts.quick brown fox", &[4]),
        ("body=wfts.\"borrow checker\" -fox", &[3]),
        ("title=like(any).{Hello*,Rust*}", &[1, 3]),
        ("title=like(all).{*o*,*e*}", &[1, 4]),
        ("id=gt(any).{3,2}", &[3, 4]),
        ("score=isdistinct.1.5", &[2, 3, 4]),
        ("or=(id.eq.1,views.gte.30)", &[1, 3]),
        ("and=(published.is.true,or(views.lt.15,id.eq.4))", &[1, 4]),
        ("not.or=(id.eq.1,id.eq.2)", &[3, 4]),
        (
            "or=(title.eq.\"Postgres, tricks (and more)\",not.and(id.gte.2,id.lte.4))",
            &[1, 4],
        ),
        ("id=gte.2&id=lte.3", &[2, 3]),
        ("title=not.like.*o*", &[2, 3]),
    ];
    for (query, expected) in cases {
        let r = app
            .get_as(&format!("/posts?select=id&order=id&{query}"), &svc)
            .await;
        assert_eq!(r.status, 200, "{query}: {}", r.text);
        assert_eq!(ids(&r.json()), expected.to_vec(), "{query}");
    }
}

#[tokio::test]
async fn order_pagination_counts_and_head() {
    let app = spawn_app().await;
    let svc = app.service();
    let r = app
        .get_as("/posts?select=id&order=score.desc.nullslast,id.asc", &svc)
        .await;
    assert_eq!(ids(&r.json()), vec![3, 1, 2, 4]);
    let r = app
        .get_as("/posts?select=id&order=score.asc.nullsfirst,id.desc", &svc)
        .await;
    assert_eq!(ids(&r.json()), vec![4, 2, 1, 3]);
    let r = app
        .get_as("/posts?select=id&order=meta->>lang.asc.nullslast,id", &svc)
        .await;
    assert_eq!(ids(&r.json())[0], 2);

    let r = app
        .req(
            "GET",
            "/posts?select=id&order=id&limit=2&offset=1",
            Some(&svc),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(r.status, 206);
    assert_eq!(r.header("content-range"), Some("1-2/4"));
    assert_eq!(r.header("preference-applied"), Some("count=exact"));
    assert_eq!(ids(&r.json()), vec![2, 3]);

    let r = app
        .req(
            "GET",
            "/posts?select=id&order=id",
            Some(&svc),
            &[("range", "2-3")],
            None,
        )
        .await;
    assert_eq!(ids(&r.json()), vec![3, 4]);
    assert_eq!(r.header("content-range"), Some("2-3/*"));

    let r = app
        .get_as(
            "/posts?offset=9223372036854775807&limit=9223372036854775807",
            &svc,
        )
        .await;
    assert_eq!(
        (r.status, r.text.as_str()),
        (200, "[]"),
        "huge numbers neither overflow nor panic"
    );
    let r = app
        .req(
            "GET",
            "/posts",
            Some(&svc),
            &[("range", "9223372036854775806-9223372036854775807")],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = app
        .req(
            "GET",
            "/posts?offset=10",
            Some(&svc),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!((r.status, r.code()), (416, "PGRST103".to_owned()));

    let r = app
        .req(
            "GET",
            "/posts?id=eq.999",
            Some(&svc),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!((r.status, r.header("content-range")), (200, Some("*/0")));

    let r = app
        .req(
            "HEAD",
            "/posts",
            Some(&svc),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-range"), Some("0-3/4"));
    assert!(r.text.is_empty());

    let r = app
        .req(
            "GET",
            "/posts?select=id",
            Some(&svc),
            &[("prefer", "count=planned")],
            None,
        )
        .await;
    assert!(r.status == 200 || r.status == 206, "{}", r.text);
    assert!(
        r.header("content-range")
            .is_some_and(|c| !c.ends_with("/*")),
        "{:?}",
        r.header("content-range")
    );

    // Count with an !inner embed counts only the matching parents.
    let r = app
        .req(
            "GET",
            "/posts?select=id,labels!inner(id)&labels.name=eq.news",
            Some(&svc),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(r.header("content-range"), Some("0-1/2"));

    // max_rows caps the page.
    let capped = spawn_with(RestConfig {
        max_rows: Some(2),
        ..RestConfig::default()
    })
    .await;
    let r = capped
        .get_as("/posts?select=id&order=id", &capped.service())
        .await;
    assert_eq!(ids(&r.json()), vec![1, 2]);
}

#[tokio::test]
async fn singular_responses_csv_and_strip_nulls() {
    let app = spawn_app().await;
    let one = [("accept", "application/vnd.pgrst.object+json")];
    let r = app
        .req("GET", "/posts?select=id,title&id=eq.1", None, &one, None)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.pgrst.object+json; charset=utf-8")
    );
    assert_eq!(r.json(), json!({"id": 1, "title": "Hello world"}));
    let r = app.req("GET", "/posts?select=id", None, &one, None).await;
    assert_eq!((r.status, r.code()), (406, "PGRST116".to_owned()));
    assert_eq!(r.json()["details"], "The result contains 3 rows");
    let r = app.req("GET", "/posts?id=eq.99", None, &one, None).await;
    assert_eq!(r.json()["details"], "The result contains 0 rows");

    let r = app
        .req(
            "GET",
            "/posts?select=id,title,editor_id&order=id&limit=2",
            None,
            &[("accept", "text/csv")],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        r.text,
        "id,title,editor_id\n1,\"Hello world\",00000000-0000-0000-0000-00000000000b\n3,\"Rust tips\",00000000-0000-0000-0000-00000000000a"
    );
    let r = app
        .req(
            "GET",
            "/posts?select=title&id=eq.4",
            None,
            &[("accept", "text/csv")],
            None,
        )
        .await;
    assert_eq!(r.text, "title\n\"Postgres, tricks (and more)\"");

    let r = app
        .req(
            "GET",
            "/posts?select=id,editor_id&id=eq.4",
            None,
            &[("accept", "application/vnd.pgrst.array+json;nulls=stripped")],
            None,
        )
        .await;
    assert_eq!(r.json(), json!([{"id": 4}]));
    let r = app
        .req(
            "GET",
            "/posts",
            None,
            &[("accept", "application/xml")],
            None,
        )
        .await;
    assert_eq!((r.status, r.code()), (406, "PGRST107".to_owned()));
}

#[tokio::test]
async fn inserts_upserts_updates_and_deletes() {
    let app = spawn_app().await;
    let alice = app.user(ALICE);
    let rep = [("prefer", "return=representation")];

    // Minimal insert: 201, empty body.
    let r = app
        .req(
            "POST",
            "/todos",
            Some(&alice),
            &[],
            Some(json!({"task": "a"})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert!(r.text.is_empty());
    assert_eq!(r.header("content-range"), Some("*/*"));

    // Representation with select and an embed-free projection.
    let r = app
        .req(
            "POST",
            "/todos?select=task,done",
            Some(&alice),
            &rep,
            Some(json!({"task": "b", "done": true})),
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (201, json!([{"task": "b", "done": true}]))
    );
    assert_eq!(
        r.header("preference-applied"),
        Some("return=representation")
    );

    // Bulk with columns=: keys outside the list are ignored; missing keys are null.
    let r = app
        .req(
            "POST",
            "/todos?columns=task,priority&select=task,priority,done",
            Some(&alice),
            &rep,
            Some(json!([{"task": "c", "priority": 1, "done": true}, {"task": "d"}])),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"task": "c", "priority": 1, "done": false}, {"task": "d", "priority": null, "done": false}])
    );

    // missing=default uses the column default for absent keys.
    let r = app
        .req(
            "POST",
            "/todos?columns=task,priority&select=task,priority",
            Some(&alice),
            &[("prefer", "return=representation, missing=default")],
            Some(json!([{"task": "e", "priority": 1}, {"task": "f"}])),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"task": "e", "priority": 1}, {"task": "f", "priority": 3}])
    );

    // headers-only: Location from the primary key.
    let r = app
        .req(
            "POST",
            "/todos",
            Some(&alice),
            &[("prefer", "return=headers-only")],
            Some(json!({"task": "g"})),
        )
        .await;
    assert_eq!(r.status, 201);
    assert!(
        r.header("location")
            .is_some_and(|l| l.starts_with("/todos?id=eq.")),
        "{:?}",
        r.headers
    );

    // Upsert: merge and ignore duplicates, on_conflict.
    let svc = app.service();
    let r = app
        .req(
            "POST",
            "/categories?select=id,name",
            Some(&svc),
            &[(
                "prefer",
                "return=representation,resolution=merge-duplicates",
            )],
            Some(json!([{"id": 1, "name": "misc"}, {"id": 3, "name": "new"}])),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"id": 1, "name": "misc"}, {"id": 3, "name": "new"}])
    );
    let r = app
        .req(
            "POST",
            "/categories?on_conflict=name&select=name",
            Some(&svc),
            &[(
                "prefer",
                "return=representation,resolution=ignore-duplicates",
            )],
            Some(json!([{"name": "tech"}, {"name": "other"}])),
        )
        .await;
    assert_eq!(r.json(), json!([{"name": "other"}]));
    let r = app
        .req(
            "POST",
            "/categories",
            Some(&svc),
            &[],
            Some(json!({"name": "tech"})),
        )
        .await;
    assert_eq!((r.status, r.code()), (409, "23505".to_owned()));

    // Update with filters and representation; update of rows RLS hides changes nothing.
    let r = app
        .req(
            "PATCH",
            "/todos?task=eq.buy%20milk&select=task,done",
            Some(&alice),
            &rep,
            Some(json!({"done": true})),
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!([{"task": "buy milk", "done": true}]))
    );
    let r = app
        .req(
            "PATCH",
            "/todos?task=eq.sleep",
            Some(&alice),
            &[],
            Some(json!({"done": true})),
        )
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(r.header("content-range"), Some("*/*"));
    let r = app.get_as("/todos?select=done&task=eq.sleep", &svc).await;
    assert_eq!(r.json(), json!([{"done": false}]));

    // Delete with count; delete with representation.
    let r = app
        .req(
            "DELETE",
            "/todos?task=in.(a,b)",
            Some(&alice),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!((r.status, r.header("content-range")), (204, Some("*/2")));
    let r = app
        .req(
            "DELETE",
            "/todos?task=eq.c&select=task",
            Some(&alice),
            &rep,
            None,
        )
        .await;
    assert_eq!(r.json(), json!([{"task": "c"}]));

    // Writes return embeds.
    let r = app
        .req(
            "POST",
            "/posts?select=title,users!author_id(name)",
            Some(&alice),
            &rep,
            Some(json!({"author_id": ALICE, "title": "New"})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"title": "New", "users": {"name": "Alice"}}])
    );

    // Singular mutation: more than one row rolls back.
    let r = app
        .req(
            "PATCH",
            "/todos",
            Some(&alice),
            &[
                ("accept", "application/vnd.pgrst.object+json"),
                ("prefer", "return=representation"),
            ],
            Some(json!({"priority": 9})),
        )
        .await;
    assert_eq!((r.status, r.code()), (406, "PGRST116".to_owned()));
    let r = app.get_as("/todos?priority=eq.9", &svc).await;
    assert_eq!(r.json(), json!([]), "the update was rolled back");

    // max-affected with handling=strict.
    let r = app
        .req(
            "DELETE",
            "/todos",
            Some(&alice),
            &[("prefer", "handling=strict, max-affected=1")],
            None,
        )
        .await;
    assert_eq!((r.status, r.code()), (400, "PGRST124".to_owned()));
    let r = app
        .req(
            "DELETE",
            "/todos?task=eq.d",
            Some(&alice),
            &[("prefer", "handling=strict, max-affected=1")],
            None,
        )
        .await;
    assert_eq!(r.status, 204);

    // tx=rollback: the write is undone but answered.
    let r = app
        .req(
            "POST",
            "/todos?select=task",
            Some(&alice),
            &[("prefer", "return=representation, tx=rollback")],
            Some(json!({"task": "ghost"})),
        )
        .await;
    assert_eq!(r.status, 201);
    assert!(
        r.header("preference-applied")
            .is_some_and(|p| p.contains("tx=rollback"))
    );
    assert_eq!(
        app.get_as("/todos?task=eq.ghost", &svc).await.json(),
        json!([])
    );
}

#[tokio::test]
async fn rpc_calls() {
    let app = spawn_app().await;
    let r = app
        .req("POST", "/rpc/add", None, &[], Some(json!({"a": 1, "b": 2})))
        .await;
    assert_eq!((r.status, r.text.as_str()), (200, "3"));
    let r = app
        .req("POST", "/rpc/add", None, &[], Some(json!({"a": 41})))
        .await;
    assert_eq!(r.text, "42", "defaults apply");
    let r = app.get("/rpc/add?a=2&b=5").await;
    assert_eq!(r.text, "7");
    let r = app.get("/rpc/numbers?n=3").await;
    assert_eq!(r.json(), json!([1, 2, 3]));

    // Set-returning table functions take filters, order, limit and select.
    let r = app
        .get(&format!(
            "/rpc/posts_by?author={BOB}&select=id,title&views=gt.25"
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json(), json!([{"id": 3, "title": "Rust tips"}]));
    let r = app
        .req(
            "POST",
            "/rpc/posts_by?select=title,users!author_id(name)&order=id.desc&limit=1",
            None,
            &[],
            Some(json!({"author": BOB})),
        )
        .await;
    assert_eq!(
        r.json(),
        json!([{"title": "Postgres, tricks (and more)", "users": {"name": "Bob"}}])
    );
    let r = app
        .req(
            "POST",
            "/rpc/post_titles?id=lt.3",
            None,
            &[("prefer", "count=exact")],
            Some(json!({})),
        )
        .await;
    assert_eq!(
        r.json(),
        json!([{"id": 1, "title": "Hello world"}]),
        "RLS applies inside functions"
    );
    assert_eq!(r.header("content-range"), Some("0-0/1"));

    // Void: 204; the volatile function works by POST, not by GET.
    let r = app
        .req(
            "POST",
            "/rpc/bump",
            Some(&app.service()),
            &[],
            Some(json!({"post": 1})),
        )
        .await;
    assert_eq!(r.status, 204, "{}", r.text);
    let r = app.get("/rpc/bump?post=1").await;
    assert_eq!((r.status, r.code()), (405, "25006".to_owned()));

    // A single unnamed json argument gets the whole body.
    let r = app
        .req("POST", "/rpc/echo", None, &[], Some(json!({"x": [1, 2]})))
        .await;
    assert_eq!(r.json(), json!({"x": [1, 2]}));

    // Claims reach the function.
    let r = app
        .req(
            "POST",
            "/rpc/whoami",
            Some(&app.user(ALICE)),
            &[],
            Some(json!({})),
        )
        .await;
    assert_eq!(r.json(), json!(format!("{ALICE}:authenticated")));
    let r = app
        .req("POST", "/rpc/whoami", None, &[], Some(json!({})))
        .await;
    assert_eq!(r.json(), json!("nobody:anon"));

    // response.headers set by SQL.
    let r = app
        .req("POST", "/rpc/with_header", None, &[], Some(json!({})))
        .await;
    assert_eq!(r.header("x-custom"), Some("yes"));

    // Overloads resolved by argument names.
    let r = app
        .req("POST", "/rpc/sum_of", None, &[], Some(json!({"x": 5})))
        .await;
    assert_eq!(r.text, "5");
    let r = app
        .req(
            "POST",
            "/rpc/sum_of",
            None,
            &[],
            Some(json!({"a": 5, "b": 6})),
        )
        .await;
    assert_eq!(r.text, "11");

    // Errors.
    let r = app
        .req("POST", "/rpc/nope", None, &[], Some(json!({})))
        .await;
    assert_eq!((r.status, r.code()), (404, "PGRST202".to_owned()));
    let r = app
        .req("POST", "/rpc/add", None, &[], Some(json!({"z": 1})))
        .await;
    assert_eq!((r.status, r.code()), (404, "PGRST202".to_owned()));
    let r = app
        .req("POST", "/rpc/fail", None, &[], Some(json!({"msg": "boom"})))
        .await;
    assert_eq!((r.status, r.code()), (400, "P0001".to_owned()));
    assert_eq!(r.json()["message"], "boom");
    let r = app
        .req("POST", "/rpc/teapot", None, &[], Some(json!({})))
        .await;
    assert_eq!((r.status, r.code()), (418, "PT418".to_owned()));
    let r = app
        .req("POST", "/rpc/add", None, &[], Some(json!({"a": "x"})))
        .await;
    assert_eq!((r.status, r.code()), (400, "22P02".to_owned()));
}

#[tokio::test]
async fn row_level_security_matrix() {
    let app = spawn_app().await;
    let alice = app.user(ALICE);
    let bob = app.user(BOB);
    let svc = app.service();
    let anon = app.anon();

    // Reads: anon none, each user their own, service role all.
    assert_eq!(app.get("/todos").await.json(), json!([]));
    assert_eq!(app.get_as("/todos", &anon).await.json(), json!([]));
    assert_eq!(
        ids(&app.get_as("/todos?order=id", &alice).await.json()),
        vec![1, 2]
    );
    assert_eq!(
        ids(&app.get_as("/todos?order=id", &bob).await.json()),
        vec![3]
    );
    assert_eq!(
        ids(&app.get_as("/todos?order=id", &svc).await.json()),
        vec![1, 2, 3]
    );
    assert_eq!(
        ids(&app.get_as("/posts?order=id", &alice).await.json()),
        vec![1, 2, 3, 4],
        "own draft visible"
    );
    assert_eq!(
        ids(&app.get_as("/posts?order=id", &bob).await.json()),
        vec![1, 3, 4]
    );

    // Writes: anon 401, another user's row 403 (with check) or nothing.
    let r = app
        .req(
            "POST",
            "/todos",
            None,
            &[],
            Some(json!({"task": "x", "owner": ALICE})),
        )
        .await;
    assert_eq!((r.status, r.code()), (401, "42501".to_owned()));
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    let r = app
        .req(
            "POST",
            "/todos",
            Some(&anon),
            &[],
            Some(json!({"task": "x", "owner": ALICE})),
        )
        .await;
    assert_eq!(r.status, 401);
    let r = app
        .req(
            "POST",
            "/todos",
            Some(&bob),
            &[],
            Some(json!({"task": "x", "owner": ALICE})),
        )
        .await;
    assert_eq!((r.status, r.code()), (403, "42501".to_owned()));
    assert!(
        r.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("row-level security"))
    );
    let r = app
        .req(
            "POST",
            "/todos",
            Some(&bob),
            &[("prefer", "return=representation")],
            Some(json!({"task": "mine"})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()[0]["owner"], BOB, "default auth.uid() filled in");
    let r = app
        .req(
            "DELETE",
            "/todos?id=eq.1",
            Some(&bob),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(
        r.header("content-range"),
        Some("*/0"),
        "bob cannot delete alice's todo"
    );
    let r = app
        .req(
            "DELETE",
            "/todos?id=eq.1",
            Some(&svc),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(
        r.header("content-range"),
        Some("*/1"),
        "service role bypasses RLS"
    );

    // Table privileges: 42501 without any grant.
    let r = app.get("/secrets").await;
    assert_eq!((r.status, r.code()), (401, "42501".to_owned()));
    let r = app.get_as("/secrets", &alice).await;
    assert_eq!((r.status, r.code()), (403, "42501".to_owned()));
    let r = app.get_as("/secrets", &svc).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn jwt_errors_are_401_never_anon() {
    let app = spawn_app().await;
    let r = app.get_as("/posts", "not-a-jwt").await;
    assert_eq!((r.status, r.code()), (401, "PGRST301".to_owned()));
    assert!(
        r.header("www-authenticate")
            .is_some_and(|w| w.contains("invalid_token"))
    );
    let other = JwtSecret::new("another-secret-which-is-32-characters-long").expect("secret");
    let forged = other.api_key("service_role", now(), now() + 60);
    let r = app.get_as("/secrets", &forged).await;
    assert_eq!((r.status, r.code()), (401, "PGRST301".to_owned()));
    let expired = app.secret.api_key("anon", now() - 100, now() - 50);
    let r = app.get_as("/posts", &expired).await;
    assert_eq!((r.status, r.code()), (401, "PGRST303".to_owned()));
    assert_eq!(r.json()["message"], "JWT expired");
    // A role that does not exist is refused by Postgres, not downgraded.
    let weird = app
        .secret
        .sign(&json!({"role": "postgres_superuser_wannabe", "exp": now() + 60}));
    let r = app.get_as("/posts", &weird).await;
    assert!(r.status >= 400, "{}", r.text);
}

#[tokio::test]
async fn error_codes() {
    let app = spawn_app().await;
    let svc = app.service();
    let cases: Vec<(Res, u16, &str)> = vec![
        (app.get("/nope").await, 404, "PGRST205"),
        (app.get("/posts?select=nope").await, 400, "42703"),
        (app.get("/posts?nope=eq.1").await, 400, "42703"),
        (app.get("/posts?order=nope").await, 400, "42703"),
        (app.get("/posts?id=zz.1").await, 400, "PGRST100"),
        (app.get("/posts?select=id,").await, 400, "PGRST100"),
        (app.get("/posts?limit=x").await, 400, "PGRST100"),
        (app.get("/posts?id=eq.abc").await, 400, "22P02"),
        (
            app.req(
                "GET",
                "/posts",
                None,
                &[("accept-profile", "private")],
                None,
            )
            .await,
            406,
            "PGRST106",
        ),
        (
            app.req("POST", "/todos", Some(&svc), &[], Some(json!({"nope": 1})))
                .await,
            400,
            "PGRST204",
        ),
        (
            app.req(
                "POST",
                "/posts",
                Some(&svc),
                &[],
                Some(json!({"author_id": "00000000-0000-0000-0000-0000000000ff", "title": "x"})),
            )
            .await,
            409,
            "23503",
        ),
        (
            app.req(
                "POST",
                "/todos",
                Some(&svc),
                &[],
                Some(json!({"owner": ALICE})),
            )
            .await,
            400,
            "23502",
        ),
        (
            app.req(
                "POST",
                "/todos",
                Some(&svc),
                &[("content-type", "application/json")],
                None,
            )
            .await,
            400,
            "23502",
        ),
        (
            app.req(
                "GET",
                "/posts",
                None,
                &[("prefer", "handling=strict, nonsense")],
                None,
            )
            .await,
            400,
            "PGRST122",
        ),
        (
            app.req("GET", "/posts?select=count()", None, &[], None)
                .await,
            200,
            "",
        ),
        (
            app.req("GET", "/a/b/c", None, &[], None).await,
            404,
            "PGRST125",
        ),
    ];
    for (i, (r, status, code)) in cases.iter().enumerate() {
        assert_eq!(r.status, *status, "case {i}: {}", r.text);
        if !code.is_empty() {
            assert_eq!(r.code(), *code, "case {i}: {}", r.text);
            let body = r.json();
            for key in ["code", "message", "details", "hint"] {
                assert!(body.get(key).is_some(), "case {i} lacks {key}: {}", r.text);
            }
        }
    }
    // Bad JSON body.
    let r = app
        .http
        .post(format!("{}/todos", app.base))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("send");
    assert_eq!(r.status().as_u16(), 400);
    let v: Value = r.json().await.expect("json");
    assert_eq!(v["code"], "PGRST102");
}

#[tokio::test]
async fn sql_injection_attempts_are_rejected_or_bound() {
    let app = spawn_app().await;
    let svc = app.service();
    let attempts = [
        // Column names.
        "/posts?select=id;drop table users--",
        "/posts?select=id,(select 1)",
        "/posts?select=\"id\"\"; drop table users; --\"",
        "/posts?select=id::text;drop table users",
        "/posts?select=id::text)from users--",
        "/posts?id;drop table users=eq.1",
        // Order terms.
        "/posts?order=id;drop table users",
        "/posts?order=(select 1)",
        "/posts?order=id.desc,1",
        // JSON paths.
        "/posts?select=meta->>'a'';drop table users--'",
        "/posts?meta->>x');drop table users--=eq.1",
        // Embeds.
        "/posts?select=users!inner;drop(*)",
        // Profiles.
    ];
    for path in attempts {
        let r = app.get_as(path, &svc).await;
        assert!(
            r.status >= 400 && r.status < 500,
            "{path}: {} {}",
            r.status,
            r.text
        );
        let _ = r.json()["code"].as_str().expect("error code");
    }
    // Values are bound: they match nothing instead of changing the query.
    let values = [
        "/posts?title=eq.x' or '1'='1",
        "/posts?title=eq.x%27%3B%20drop%20table%20users%3B--",
        "/posts?title=in.(x') or true --)",
        "/posts?title=like.*' or 1=1--",
        "/posts?or=(title.eq.x' or 'a'='a,id.eq.-1)",
        "/posts?body=fts(english').x",
        "/posts?meta->>lang=eq.en' or '1'='1",
        "/posts?select=meta->>\"a'); drop table users; --\"",
    ];
    for path in values {
        let r = app.get_as(path, &svc).await;
        assert!(
            r.status == 200 || r.status == 400 || r.status == 404,
            "{path}: {} {}",
            r.status,
            r.text
        );
        if r.status == 200 {
            let rows = r.json();
            let n = rows.as_array().map(Vec::len).unwrap_or(0);
            let nulls = rows.as_array().is_some_and(|a| {
                a.iter().all(|row| {
                    row.as_object()
                        .is_some_and(|o| o.values().all(Value::is_null))
                })
            });
            assert!(n == 0 || nulls, "{path}: {}", r.text);
        }
    }
    // RPC and table names.
    for path in [
        "/rpc/add;drop table users",
        "/rpc/pg_sleep",
        "/users;drop",
        "/rpc/\"add\"",
    ] {
        let r = app
            .req("POST", path, Some(&svc), &[], Some(json!({})))
            .await;
        assert!(r.status == 404, "{path}: {} {}", r.status, r.text);
    }
    let r = app
        .req(
            "POST",
            "/todos",
            Some(&svc),
            &[],
            Some(json!({"task\"); drop table users; --": 1})),
        )
        .await;
    assert_eq!(r.code(), "PGRST204");
    let r = app
        .req(
            "POST",
            "/todos?columns=task,\"x\"\"); drop table users --\"",
            Some(&svc),
            &[],
            Some(json!({"task": "t"})),
        )
        .await;
    assert_eq!(r.code(), "PGRST204");
    let users = app.get_as("/users?select=id", &svc).await;
    assert_eq!(
        users.json().as_array().map(Vec::len),
        Some(3),
        "users survived"
    );
}

#[tokio::test]
async fn profiles_aggregates_openapi_and_explain() {
    let app = spawn_app().await;
    let r = app
        .req(
            "GET",
            "/notes?select=body",
            None,
            &[("accept-profile", "api")],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json(), json!([{"body": "from api"}]));
    assert_eq!(r.header("content-profile"), Some("api"));
    let r = app
        .req(
            "POST",
            "/notes?select=body",
            None,
            &[
                ("content-profile", "api"),
                ("prefer", "return=representation"),
            ],
            Some(json!({"body": "new"})),
        )
        .await;
    assert_eq!((r.status, r.json()), (201, json!([{"body": "new"}])));
    let r = app.get("/notes").await;
    assert_eq!(r.code(), "PGRST205", "not in the default schema");

    let svc = app.service();
    let r = app
        .get_as(
            "/posts?select=count(),total:views.sum(),avg_views:views.avg()::int,views.max()",
            &svc,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"count": 4, "total": 60, "avg_views": 15, "max": 30}])
    );
    let r = app
        .get_as("/posts?select=author_id,count()&order=author_id", &svc)
        .await;
    assert_eq!(
        r.json(),
        json!([{"author_id": ALICE, "count": 2}, {"author_id": BOB, "count": 2}])
    );
    let off = spawn_with(RestConfig::default()).await;
    let r = off.get("/posts?select=count()").await;
    assert_eq!((r.status, r.code()), (400, "PGRST123".to_owned()));

    // `/rest/v1` itself (axum's `nest` does not route the trailing-slash form).
    let r = app.get("").await;
    assert_eq!(r.status, 200, "{}", r.text);
    let doc = r.json();
    assert_eq!(doc["swagger"], "2.0");
    assert!(doc["paths"]["/posts"]["get"].is_object());
    assert!(doc["paths"]["/rpc/add"]["post"].is_object());
    assert_eq!(
        doc["definitions"]["posts"]["properties"]["tags"]["type"],
        "array"
    );

    let r = app
        .req(
            "GET",
            "/posts?id=eq.1",
            None,
            &[("accept", "application/vnd.pgrst.plan+json")],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r.json()[0]["Plan"].is_object());
    let r = off
        .req(
            "GET",
            "/posts",
            None,
            &[("accept", "application/vnd.pgrst.plan+json")],
            None,
        )
        .await;
    assert_eq!(r.status, 406);

    let r = app.req("OPTIONS", "/posts", None, &[], None).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn schema_reloads_after_ddl_and_notify() {
    let app = spawn_app().await;
    assert_eq!(app.get("/fresh").await.code(), "PGRST205");
    sqlx::raw_sql("create table fresh (id int primary key); insert into fresh values (7)")
        .execute(&app.test_db.db.owner)
        .await
        .expect("ddl");
    let mut status = 0;
    for _ in 0..100 {
        let r = app.get("/fresh").await;
        status = r.status;
        if status == 200 {
            assert_eq!(r.json(), json!([{"id": 7}]));
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(status, 200, "the event trigger's NOTIFY reloaded the cache");

    // Explicit NOTIFY and the direct reload both work too.
    sqlx::raw_sql("alter table fresh add column label text; notify pgrst, 'reload schema'")
        .execute(&app.test_db.db.owner)
        .await
        .expect("ddl");
    app.state.reload_schema().await.expect("reload");
    let r = app.get("/fresh?select=id,label").await;
    assert_eq!(r.json(), json!([{"id": 7, "label": null}]));
}

#[tokio::test]
async fn postgrest_rs_client_works_against_the_gateway() {
    let app = spawn_app().await;
    let alice = app.user(ALICE);
    let client = postgrest::Postgrest::new(app.base.clone()).insert_header("apikey", app.anon());

    let r = client
        .from("posts")
        .select("id,title,users!author_id(name)")
        .eq("published", "true")
        .order("id.desc")
        .limit(2)
        .execute()
        .await
        .expect("request");
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = serde_json::from_str(&r.text().await.expect("body")).expect("json");
    assert_eq!(
        v[0],
        json!({"id": 4, "title": "Postgres, tricks (and more)", "users": {"name": "Bob"}})
    );

    let r = client
        .from("posts")
        .select("id")
        .in_("id", ["1", "3"])
        .or("views.gt.20,title.ilike.*hello*")
        .exact_count()
        .execute()
        .await
        .expect("request");
    // postgrest-rs asks for the count with `Range: 0-0`, as PostgREST clients did.
    assert_eq!(r.status().as_u16(), 206);
    assert_eq!(
        r.headers()
            .get("content-range")
            .and_then(|v| v.to_str().ok()),
        Some("0-0/2")
    );

    let r = client
        .from("posts")
        .select("title")
        .eq("id", "3")
        .single()
        .execute()
        .await
        .expect("request");
    let v: Value = serde_json::from_str(&r.text().await.expect("body")).expect("json");
    assert_eq!(v, json!({"title": "Rust tips"}));

    let r = client
        .from("posts")
        .select("id")
        .range(0, 1)
        .order("id")
        .execute()
        .await
        .expect("request");
    let v: Value = serde_json::from_str(&r.text().await.expect("body")).expect("json");
    assert_eq!(ids(&v), vec![1, 3]);

    let r = client
        .from("todos")
        .auth(&alice)
        .insert(json!({"task": "via postgrest-rs"}).to_string())
        .execute()
        .await
        .expect("request");
    assert_eq!(r.status().as_u16(), 201);
    let v: Value = serde_json::from_str(&r.text().await.expect("body")).expect("json");
    assert_eq!(v[0]["task"], "via postgrest-rs");

    let r = client
        .from("todos")
        .auth(&alice)
        .eq("task", "via postgrest-rs")
        .update(json!({"done": true}).to_string())
        .execute()
        .await
        .expect("request");
    let v: Value = serde_json::from_str(&r.text().await.expect("body")).expect("json");
    assert_eq!(v[0]["done"], true);

    let r = client
        .from("categories")
        .auth(app.service())
        .upsert(json!([{"id": 2, "name": "technology"}]).to_string())
        .execute()
        .await
        .expect("request");
    // Category 2 exists: the upsert merged it and inserted nothing, which
    // PostgREST answers with 200 (Response.hs), not 201.
    assert_eq!(r.status().as_u16(), 200);

    let r = client
        .from("todos")
        .auth(&alice)
        .delete()
        .eq("task", "via postgrest-rs")
        .execute()
        .await
        .expect("request");
    let v: Value = serde_json::from_str(&r.text().await.expect("body")).expect("json");
    assert_eq!(v.as_array().map(Vec::len), Some(1));

    let r = client
        .rpc("add", json!({"a": 20, "b": 22}).to_string())
        .execute()
        .await
        .expect("request");
    assert_eq!(r.text().await.expect("body"), "42");

    let r = client
        .from("posts")
        .select("id")
        .fts("body", "quick & fox", Some("english"))
        .execute()
        .await
        .expect("request");
    let v: Value = serde_json::from_str(&r.text().await.expect("body")).expect("json");
    assert_eq!(ids(&v), vec![4]);

    let r = client
        .from("posts")
        .select("id")
        .cs("tags", "{rust}")
        .not("is", "category_id", "null")
        .execute()
        .await
        .expect("request");
    let v: Value = serde_json::from_str(&r.text().await.expect("body")).expect("json");
    assert_eq!(ids(&v), vec![3]);

    let r = client
        .from("nope")
        .select("*")
        .execute()
        .await
        .expect("request");
    assert_eq!(r.status().as_u16(), 404);
}

#[tokio::test]
async fn order_by_a_column_of_an_embedded_to_one_resource() {
    let app = spawn_app().await;
    let svc = app.service();
    // Posts: 1, 2 by Alice, 3, 4 by Bob; editors: 1 Bob, 3 Alice, 2 and 4 none.
    let r = app
        .get_as(
            "/posts?select=id,author:users!author_id(name)&order=author(name).desc,id",
            &svc,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(ids(&r.json()), vec![3, 4, 1, 2]);
    assert_eq!(r.json()[0], json!({"id": 3, "author": {"name": "Bob"}}));

    // nullslast / nullsfirst apply to a missing embedded row.
    let r = app
        .get_as(
            "/posts?select=id,editor:users!editor_id(name)&order=editor(name).asc.nullslast,id",
            &svc,
        )
        .await;
    assert_eq!(ids(&r.json()), vec![3, 1, 2, 4], "{}", r.text);
    let r = app.get_as("/posts?select=id,editor:users!editor_id(name)&order=editor(name).desc.nullsfirst,id.desc", &svc).await;
    assert_eq!(ids(&r.json()), vec![4, 2, 1, 3], "{}", r.text);

    // The ordering column need not be selected, and never leaks into the body.
    let r = app
        .get_as(
            "/posts?select=id,author:users!author_id(email)&order=author(name).desc,id&limit=1",
            &svc,
        )
        .await;
    assert_eq!(
        r.json(),
        json!([{"id": 3, "author": {"email": "bob@example.com"}}])
    );
    let r = app
        .get_as(
            "/posts?select=id,...users!editor_id(editor:name)&order=users(name).desc.nullslast,id",
            &svc,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"id": 1, "editor": "Bob"}, {"id": 3, "editor": "Alice"}, {"id": 2, "editor": null}, {"id": 4, "editor": null}])
    );

    // Together with counts, pagination, the embed's own name and postgrest-js' quoting.
    let r = app
        .req(
            "GET",
            "/posts?select=id,users!author_id(name)&order=users(name).asc,id.desc&limit=2",
            Some(&svc),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(
        (ids(&r.json()), r.header("content-range")),
        (vec![2, 1], Some("0-1/4"))
    );
    let r = app
        .get_as(
            "/posts?select=id,author:users!author_id(name)&order=author(\"name\").desc,id",
            &svc,
        )
        .await;
    assert_eq!(ids(&r.json()), vec![3, 4, 1, 2], "{}", r.text);

    // Errors as PostgREST gives them.
    let r = app
        .get_as(
            "/users?select=name,posts!author_id(id)&order=posts(id)",
            &svc,
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (400, "PGRST118".to_owned()),
        "{}",
        r.text
    );
    assert_eq!(
        r.json()["message"],
        "A related order on 'posts' is not possible"
    );
    assert_eq!(
        r.json()["details"],
        "'users' and 'posts' do not form a many-to-one or one-to-one relationship"
    );
    let r = app
        .get_as("/posts?select=id&order=author(name)", &svc)
        .await;
    assert_eq!(
        (r.status, r.code()),
        (400, "PGRST108".to_owned()),
        "{}",
        r.text
    );
    let r = app
        .get_as(
            "/posts?select=id,author:users!author_id(name)&order=author(nope)",
            &svc,
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (400, "42703".to_owned()),
        "{}",
        r.text
    );
    let r = app
        .get_as(
            "/posts?select=id,author:users!author_id(name)&order=author(name",
            &svc,
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (400, "PGRST100".to_owned()),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn limit_and_order_on_update_and_delete() {
    let app = spawn_app().await;
    let svc = app.service();
    let rep = [("prefer", "return=representation")];

    // PATCH: only the first page of the ordered rows; the representation keeps the order.
    let r = app
        .req(
            "PATCH",
            "/todos?select=id&order=id.desc&limit=2",
            Some(&svc),
            &rep,
            Some(json!({"priority": 7})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(ids(&r.json()), vec![3, 2]);
    assert_eq!(
        ids(&app
            .get_as("/todos?priority=eq.7&order=id", &svc)
            .await
            .json()),
        vec![2, 3]
    );
    // limit + offset + filter.
    let r = app
        .req(
            "PATCH",
            "/todos?priority=eq.7&order=id&limit=1&offset=1",
            Some(&svc),
            &[("prefer", "count=exact")],
            Some(json!({"priority": 8})),
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (204, Some("0-0/1")),
        "{}",
        r.text
    );
    assert_eq!(
        ids(&app.get_as("/todos?priority=eq.8", &svc).await.json()),
        vec![3]
    );

    // DELETE with a filter: the first matching row only.
    let r = app
        .req(
            "DELETE",
            "/todos?done=is.false&order=id&limit=1&select=id",
            Some(&svc),
            &rep,
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!([{"id": 1}])),
        "{}",
        r.text
    );
    assert_eq!(
        ids(&app.get_as("/todos?order=id", &svc).await.json()),
        vec![2, 3]
    );

    // RLS still decides which rows are candidates: Alice's page holds only her rows.
    let alice = app.user(ALICE);
    let r = app
        .req(
            "DELETE",
            "/todos?order=id.desc&limit=5",
            Some(&alice),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (204, Some("*/1")),
        "{}",
        r.text
    );
    assert_eq!(
        ids(&app.get_as("/todos?order=id", &svc).await.json()),
        vec![3]
    );

    // A table without a primary key is limited by row identity.
    let r = app
        .req(
            "DELETE",
            "/tallies?order=n.desc&limit=2&n=gt.1&select=label",
            Some(&svc),
            &rep,
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!([{"label": "d"}, {"label": "c"}])),
        "{}",
        r.text
    );
    let r = app
        .req(
            "PATCH",
            "/tallies?order=label&limit=1&offset=1&select=label,n",
            Some(&svc),
            &rep,
            Some(json!({"n": 20})),
        )
        .await;
    assert_eq!(r.json(), json!([{"label": "b", "n": 20}]), "{}", r.text);
    assert_eq!(
        app.get_as("/tallies?select=n&order=label", &svc)
            .await
            .json(),
        json!([{"n": 1}, {"n": 20}])
    );

    // `limit` without `order` is refused, as PostgREST does, and changes nothing.
    for (method, body) in [("PATCH", Some(json!({"n": 0}))), ("DELETE", None)] {
        let r = app
            .req(method, "/tallies?limit=1", Some(&svc), &[], body)
            .await;
        assert_eq!(
            (r.status, r.code()),
            (400, "PGRST109".to_owned()),
            "{method}: {}",
            r.text
        );
        assert_eq!(
            r.json()["message"],
            "A 'limit' was applied without an explicit 'order'"
        );
        assert_eq!(r.json()["hint"], "Apply an 'order' using unique column(s)");
        assert_eq!(r.json()["details"], Value::Null);
    }
    assert_eq!(
        app.get_as("/tallies?select=n&order=label", &svc)
            .await
            .json(),
        json!([{"n": 1}, {"n": 20}])
    );
    // `order` alone and the `Range` header do not limit a write.
    let r = app
        .req(
            "PATCH",
            "/tallies?order=label",
            Some(&svc),
            &[("range", "0-0"), ("prefer", "count=exact")],
            Some(json!({"n": 5})),
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (204, Some("0-1/2")),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn computed_columns_and_relationships_and_partitioned_tables() {
    let app = spawn_app().await;
    let svc = app.service();

    // Computed column: select, filter, order, cast.
    let r = app
        .get("/posts?select=id,title_upper&title_upper=like.*O*&order=title_upper.desc")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"id": 4, "title_upper": "POSTGRES, TRICKS (AND MORE)"}, {"id": 1, "title_upper": "HELLO WORLD"}])
    );
    let r = app
        .get("/posts?select=id&or=(title_upper.eq.RUST TIPS,id.eq.1)&order=id")
        .await;
    assert_eq!(ids(&r.json()), vec![1, 3], "{}", r.text);

    // Computed relationships: to-one (`setof … rows 1` and a plain row type) and to-many.
    let r = app
        .get_as(
            "/posts?select=id,author_of(name),first_label(name)&order=id",
            &svc,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([
            {"id": 1, "author_of": {"name": "Alice"}, "first_label": {"name": "news"}},
            {"id": 2, "author_of": {"name": "Alice"}, "first_label": {"name": null}},
            {"id": 3, "author_of": {"name": "Bob"}, "first_label": {"name": "howto"}},
            {"id": 4, "author_of": {"name": "Bob"}, "first_label": {"name": "news"}}
        ])
    );
    let r = app
        .get("/users?select=name,written_posts(id,title)&written_posts.order=id.desc&written_posts.views=gt.10&name=in.(Bob,Carol)&order=name")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([
            {"name": "Bob", "written_posts": [{"id": 4, "title": "Postgres, tricks (and more)"}, {"id": 3, "title": "Rust tips"}]},
            {"name": "Carol", "written_posts": []}
        ])
    );
    // Aliased, !inner, nested, and ordered by (to-one) — RLS applies inside the function.
    let r = app
        .get("/posts?select=id,writer:author_of!inner(name,written_posts(id))&writer.name=eq.Alice&order=writer(name),id")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"id": 1, "writer": {"name": "Alice", "written_posts": [{"id": 1}]}}])
    );

    // A partitioned table: read across partitions, filter, embed both ways.
    let r = app
        .get_as("/readings?select=id,value,posts(title)&order=taken", &svc)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([
            {"id": 1, "value": 10, "posts": {"title": "Hello world"}},
            {"id": 2, "value": 20, "posts": {"title": "Rust tips"}},
            {"id": 3, "value": 30, "posts": {"title": "Hello world"}}
        ])
    );
    let r = app
        .get_as(
            "/posts?select=id,readings(value)&readings.order=value.desc&id=in.(1,2)&order=id",
            &svc,
        )
        .await;
    assert_eq!(
        r.json(),
        json!([{"id": 1, "readings": [{"value": 30}, {"value": 10}]}, {"id": 2, "readings": []}]),
        "{}",
        r.text
    );
    // Insert routes rows to their partitions; update and delete work on the parent.
    let r = app
        .req(
            "POST",
            "/readings?select=id,taken,posts(id)&order=id",
            Some(&svc),
            &[("prefer", "return=representation")],
            Some(json!([{"id": 4, "post_id": 4, "taken": "2024-12-31", "value": 40}, {"id": 5, "post_id": 4, "taken": "2025-01-01", "value": 50}])),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"id": 4, "taken": "2024-12-31", "posts": {"id": 4}}, {"id": 5, "taken": "2025-01-01", "posts": {"id": 4}}])
    );
    let parts: Vec<(String, i64)> = sqlx::query_as(
        "select tableoid::regclass::text, count(*) from readings where post_id = 4 group by 1 order by 1",
    )
    .fetch_all(&app.test_db.db.owner)
    .await
    .expect("partitions");
    assert_eq!(
        parts,
        vec![
            ("readings_2024".to_owned(), 1),
            ("readings_2025".to_owned(), 1)
        ]
    );
    // A partition itself is not a resource: PostgREST leaves partitions out
    // of its schema cache and answers 404 PGRST205.
    let r = app.get_as("/readings_2024?select=id", &svc).await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(r.code(), "PGRST205");
    assert_eq!(
        r.json()["message"],
        "Could not find the table 'public.readings_2024' in the schema cache"
    );
    let r = app
        .req(
            "PATCH",
            "/readings?post_id=eq.4&order=taken.desc&limit=1",
            Some(&svc),
            &[("prefer", "count=exact")],
            Some(json!({"value": 55})),
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (204, Some("0-0/1")),
        "{}",
        r.text
    );
    let r = app
        .req(
            "DELETE",
            "/readings?value=gte.40",
            Some(&svc),
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(r.header("content-range"), Some("*/2"), "{}", r.text);
    let r = app
        .req(
            "POST",
            "/readings",
            Some(&svc),
            &[],
            Some(json!({"id": 9, "post_id": 1, "taken": "2030-01-01", "value": 1})),
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (400, "23514".to_owned()),
        "no partition for the row: {}",
        r.text
    );
}

#[tokio::test]
async fn prefer_timezone_sets_the_transaction_time_zone() {
    let app = spawn_app().await;
    let tokyo = [("prefer", "timezone=Asia/Tokyo")];
    let r = app
        .req("GET", "/posts?select=during&id=eq.1", None, &tokyo, None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([{"during": "[\"2024-01-01 09:00:00+09\",\"2024-02-01 09:00:00+09\")"}])
    );
    assert_eq!(r.header("preference-applied"), Some("timezone=Asia/Tokyo"));
    let r = app
        .req(
            "POST",
            "/rpc/current_tz",
            None,
            &[("prefer", "timezone=America/Los_Angeles, count=exact")],
            Some(json!({})),
        )
        .await;
    assert_eq!(r.json(), json!("America/Los_Angeles"));
    assert_eq!(
        r.header("preference-applied"),
        Some("count=exact, timezone=America/Los_Angeles")
    );
    let r = app
        .req(
            "GET",
            "/posts?select=during&id=eq.1",
            None,
            &[("prefer", "timezone=UTC")],
            None,
        )
        .await;
    assert_eq!(
        r.json(),
        json!([{"during": "[\"2024-01-01 00:00:00+00\",\"2024-02-01 00:00:00+00\")"}])
    );

    // Only for its own transaction.
    let default_tz = app
        .req("POST", "/rpc/current_tz", None, &[], Some(json!({})))
        .await
        .json();
    assert_ne!(default_tz, json!("Asia/Tokyo"));
    assert_eq!(
        app.req("POST", "/rpc/current_tz", None, &[], Some(json!({})))
            .await
            .header("preference-applied"),
        None
    );

    // An unknown zone is ignored: no error, no Preference-Applied, the default zone.
    for tz in [
        "timezone=Mars/Olympus_Mons",
        "timezone=asia/tokyo'; select 1; --",
    ] {
        let r = app
            .req(
                "POST",
                "/rpc/current_tz",
                None,
                &[("prefer", tz)],
                Some(json!({})),
            )
            .await;
        assert_eq!(
            (r.status, r.json()),
            (200, default_tz.clone()),
            "{tz}: {}",
            r.text
        );
        assert_eq!(r.header("preference-applied"), None, "{tz}");
    }
}

#[tokio::test]
async fn custom_errors_raised_from_sql() {
    let app = spawn_app().await;
    let r = app
        .req("POST", "/rpc/pay_up", None, &[], Some(json!({})))
        .await;
    assert_eq!(r.status, 402, "{}", r.text);
    assert_eq!(
        r.json(),
        json!({"code": "123", "message": "Payment Required", "details": "Quota exceeded", "hint": "Upgrade your plan"})
    );
    assert_eq!(r.header("x-powered-by"), Some("Nerd Rage"));
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    // GET works the same (the function is volatile, so it runs read-only and still raises first).
    let r = app.get("/rpc/pay_up").await;
    assert_eq!(
        (r.status, r.header("x-powered-by")),
        (402, Some("Nerd Rage")),
        "{}",
        r.text
    );

    // Malformed payloads: PGRST121, 500.
    let r = app
        .req(
            "POST",
            "/rpc/bad_raise",
            None,
            &[],
            Some(json!({"which": "message"})),
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (500, "PGRST121".to_owned()),
        "{}",
        r.text
    );
    assert_eq!(
        r.json()["message"],
        "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error"
    );
    assert_eq!(
        r.json()["details"],
        "Invalid JSON value for MESSAGE: 'not json'"
    );
    let r = app
        .req(
            "POST",
            "/rpc/bad_raise",
            None,
            &[],
            Some(json!({"which": "detail"})),
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (500, "PGRST121".to_owned()),
        "{}",
        r.text
    );
    assert_eq!(
        r.json()["details"],
        "DETAIL is missing in the RAISE statement"
    );
}

/// `Server-Timing` as PostgREST sends it: `jwt`, `parse`, `plan`,
/// `transaction` (the query) and `response` (rendering), each `name;dur=ms`.
fn server_timing(r: &Res) -> Vec<(String, f64)> {
    let header = r
        .header("server-timing")
        .unwrap_or_else(|| panic!("no Server-Timing: {:?}", r.headers));
    header
        .split(", ")
        .map(|entry| {
            let (name, dur) = entry
                .split_once(";dur=")
                .unwrap_or_else(|| panic!("entry {entry:?} in {header:?}"));
            let dur: f64 = dur
                .parse()
                .unwrap_or_else(|e| panic!("duration of {entry:?}: {e}"));
            assert!(dur >= 0.0 && dur.is_finite(), "{entry}");
            (name.to_owned(), dur)
        })
        .collect()
}

#[tokio::test]
async fn server_timing_reports_each_stage() {
    let app = spawn_app().await;
    let names = |r: &Res| {
        server_timing(r)
            .into_iter()
            .map(|(n, _)| n)
            .collect::<Vec<_>>()
    };
    let stages = ["jwt", "parse", "plan", "transaction", "response"];

    let r = app
        .get_as(
            "/posts?select=id,users!author_id(name)&order=id",
            &app.user(ALICE),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(names(&r), stages);
    let t = server_timing(&r);
    assert!(t[3].1 > 0.0, "the transaction took time: {t:?}");

    let r = app
        .req(
            "POST",
            "/todos",
            Some(&app.service()),
            &[],
            Some(json!({"task": "t", "owner": ALICE})),
        )
        .await;
    assert_eq!(
        (r.status, names(&r)),
        (201, stages.map(String::from).to_vec())
    );
    let r = app
        .req("POST", "/rpc/add", None, &[], Some(json!({"a": 1})))
        .await;
    assert_eq!(names(&r), stages);
    // Errors carry it too, whichever stage refused the request.
    for path in ["/posts?id=zz.1", "/nope", "/posts?id=eq.abc"] {
        let r = app.get(path).await;
        assert!(r.status >= 400, "{path}");
        assert_eq!(names(&r), stages, "{path}");
    }
    let r = app.get_as("/posts", "not-a-jwt").await;
    assert_eq!(
        (r.status, names(&r)),
        (401, stages.map(String::from).to_vec())
    );
}

#[tokio::test]
async fn statements_are_prepared_once_per_connection_and_bounded() {
    let app = spawn_app().await;
    let prepared = || async {
        let r = app.req("POST", "/rpc/prepared_here", None, &[], None).await;
        assert_eq!(r.status, 200, "{}", r.text);
        r.json().as_i64().expect("a count")
    };
    // One request at a time: the pool holds one connection.
    let first = prepared().await;
    assert_eq!(app.get("/posts?select=id&id=eq.1").await.status, 200);
    let after_one = prepared().await;
    assert!(after_one > first, "the first read prepared its statements");
    for _ in 0..5 {
        assert_eq!(app.get("/posts?select=id&id=eq.1").await.status, 200);
    }
    assert_eq!(
        prepared().await,
        after_one,
        "five more identical reads prepare nothing more"
    );
    // Different statements (a growing `or` list) fill the cache up to its
    // bound; it never holds more.
    let limit = plinth_db::pipeline::STATEMENT_CACHE_LIMIT as i64;
    let mut most = 0;
    for n in 1..=(limit as usize + 40) {
        let or = (1..=n).map(|i| format!("views.eq.{i}")).collect::<Vec<_>>();
        let r = app
            .get(&format!("/posts?select=id&or=({})", or.join(",")))
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        if n % 50 == 0 {
            most = most.max(prepared().await);
        }
    }
    most = most.max(prepared().await);
    assert!(most > limit / 2, "the cache was used: {most}");
    assert!(most <= limit + 1, "at most {limit} statements kept: {most}");
}

#[tokio::test]
async fn a_request_dropped_mid_transaction_leaves_no_transaction_behind() {
    let app = spawn_app().await;
    let service = app.service();
    let backends = || async {
        let pids: Vec<i32> = sqlx::query_scalar(
            "select pid from pg_stat_activity \
             where usename = 'authenticator' and datname = current_database() order by pid",
        )
        .fetch_all(&app.test_db.db.owner)
        .await
        .expect("activity");
        pids
    };
    assert_eq!(app.get_as("/marks?select=n", &service).await.status, 200);
    let before = backends().await;
    // A singular response is checked before COMMIT is sent; the client
    // gives up while the function sleeps, so COMMIT is never sent.
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_millis(400))
        .build()
        .expect("client");
    let dropped = client
        .post(format!("{}/rpc/mark_slowly", app.base))
        .header("apikey", &service)
        .header("authorization", format!("Bearer {service}"))
        .header("accept", "application/vnd.pgrst.object+json")
        .header("content-type", "application/json")
        .body(r#"{"n": 7}"#)
        .send()
        .await;
    assert!(dropped.is_err(), "the client timed out");
    tokio::time::sleep(std::time::Duration::from_millis(2000)).await;
    let r = app.get_as("/marks?select=n", &service).await;
    assert_eq!((r.status, r.json()), (200, json!([])), "rolled back");
    let idle_in_transaction: i64 = sqlx::query_scalar(
        "select count(*) from pg_stat_activity \
         where usename = 'authenticator' and datname = current_database() \
           and state like 'idle in transaction%'",
    )
    .fetch_one(&app.test_db.db.owner)
    .await
    .expect("activity");
    assert_eq!(idle_in_transaction, 0);
    // The connection was kept: it ended the transaction and went back.
    assert_eq!(backends().await, before);
    // The pool still serves, and a completed write of the same function
    // commits.
    let r = app
        .req(
            "POST",
            "/rpc/mark_slowly",
            Some(&service),
            &[("accept", "application/vnd.pgrst.object+json")],
            Some(json!({"n": 8})),
        )
        .await;
    assert_eq!((r.status, r.json()), (200, json!({"n": 8})), "{}", r.text);
    let r = app.get_as("/marks?select=n", &service).await;
    assert_eq!(r.json(), json!([{"n": 8}]));
}

#[tokio::test]
async fn a_statement_that_fails_to_prepare_leaves_its_connection_clean() {
    let app = spawn_app().await;
    // One request at a time, so one connection serves them all. `like` on
    // a text[] column fails while the statement is prepared, before the
    // rest of the transaction is sent.
    for _ in 0..3 {
        let r = app.get("/posts?select=id&tags=like.x").await;
        assert_eq!(r.code(), "42883", "{}", r.text);
        let r = app.get("/posts?select=id&id=eq.1").await;
        assert_eq!(
            (r.status, r.json()),
            (200, json!([{"id": 1}])),
            "{}",
            r.text
        );
        let r = app
            .req(
                "POST",
                "/todos",
                Some(&app.user(ALICE)),
                &[("prefer", "return=minimal")],
                Some(json!({"task": "after a failed prepare"})),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    let r = app
        .get_as(
            "/todos?select=task&task=eq.after a failed prepare",
            &app.user(ALICE),
        )
        .await;
    assert_eq!(r.json().as_array().map(Vec::len), Some(3), "{}", r.text);
}
