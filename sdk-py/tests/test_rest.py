"""Tables and RPC through supabase-py's postgrest client against /rest/v1:
filters, writes, counts and functions, under row-level security."""

import pytest
from postgrest.exceptions import APIError


def test_insert_returns_rows_and_select_filters(signed_in, sql):
    user = signed_in("rest")
    db = user.client
    inserted = (
        db.table("py_items")
        .insert(
            [
                {"name": "apple", "color": "red", "qty": 3},
                {"name": "banana", "color": "yellow", "qty": 7},
                {"name": "cherry", "color": "red", "qty": 12},
                {"name": "damson", "color": None, "qty": 1},
            ]
        )
        .execute()
    )
    assert sorted(r["name"] for r in inserted.data) == ["apple", "banana", "cherry", "damson"]
    # The owner column took the caller's id from auth.uid().
    assert {r["owner"] for r in inserted.data} == {user.id}

    red = db.table("py_items").select("name, qty").eq("color", "red").order("qty").execute()
    assert red.data == [{"name": "apple", "qty": 3}, {"name": "cherry", "qty": 12}]

    ranged = db.table("py_items").select("name").gt("qty", 2).lte("qty", 12).order("name", desc=True).execute()
    assert [r["name"] for r in ranged.data] == ["cherry", "banana", "apple"]

    listed = db.table("py_items").select("name").in_("name", ["apple", "damson", "zucchini"]).order("name").execute()
    assert [r["name"] for r in listed.data] == ["apple", "damson"]

    liked = db.table("py_items").select("name").ilike("name", "%AN%").execute()
    assert [r["name"] for r in liked.data] == ["banana"]

    nulls = db.table("py_items").select("name").is_("color", "null").execute()
    assert [r["name"] for r in nulls.data] == ["damson"]

    either = db.table("py_items").select("name").or_("qty.lt.2,color.eq.yellow").order("name").execute()
    assert [r["name"] for r in either.data] == ["banana", "damson"]

    page = db.table("py_items").select("name").order("name").range(1, 2).execute()
    assert [r["name"] for r in page.data] == ["banana", "cherry"]

    one = db.table("py_items").select("name, qty").eq("name", "banana").single().execute()
    assert one.data == {"name": "banana", "qty": 7}

    missing = db.table("py_items").select("name").eq("name", "nothing").maybe_single().execute()
    assert missing is None

    # Another user sees none of these rows.
    other = signed_in("rest-other")
    assert other.client.table("py_items").select("*").execute().data == []
    stored = sql("select count(*)::int as n from public.py_items where owner = %s", (user.id,))
    assert stored[0]["n"] == 4


def test_count_exact_and_head(signed_in):
    db = signed_in("count").client
    db.table("py_items").insert([{"name": f"item-{i}", "qty": i} for i in range(5)]).execute()
    counted = db.table("py_items").select("*", count="exact").gte("qty", 2).limit(1).execute()
    assert counted.count == 3
    assert len(counted.data) == 1
    head = db.table("py_items").select("*", count="exact", head=True).execute()
    assert head.count == 5
    assert head.data == []


def test_upsert_update_delete(signed_in, sql):
    user = signed_in("writes")
    db = user.client
    db.table("py_items").insert({"name": "pear", "qty": 1, "color": "green"}).execute()

    upserted = (
        db.table("py_items")
        .upsert([{"owner": user.id, "name": "pear", "qty": 10}, {"owner": user.id, "name": "plum", "qty": 4}], on_conflict="owner,name")
        .execute()
    )
    assert sorted((r["name"], r["qty"]) for r in upserted.data) == [("pear", 10), ("plum", 4)]
    # merge-duplicates keeps the columns the upsert did not send.
    pear = sql("select qty, color from public.py_items where owner = %s and name = 'pear'", (user.id,))
    assert pear == [{"qty": 10, "color": "green"}]

    ignored = (
        db.table("py_items")
        .upsert({"owner": user.id, "name": "plum", "qty": 99}, on_conflict="owner,name", ignore_duplicates=True)
        .execute()
    )
    assert ignored.data == []
    assert sql("select qty from public.py_items where owner = %s and name = 'plum'", (user.id,)) == [{"qty": 4}]

    updated = db.table("py_items").update({"color": "purple"}).eq("name", "plum").execute()
    assert [(r["name"], r["color"]) for r in updated.data] == [("plum", "purple")]

    deleted = db.table("py_items").delete().eq("name", "pear").execute()
    assert [r["name"] for r in deleted.data] == ["pear"]
    remaining = db.table("py_items").select("name, color").execute()
    assert remaining.data == [{"name": "plum", "color": "purple"}]


def test_rls_refuses_a_row_for_someone_else(signed_in):
    user = signed_in("rls")
    other = signed_in("rls-other")
    with pytest.raises(APIError) as caught:
        user.client.table("py_items").insert({"owner": other.id, "name": "intruder"}).execute()
    assert caught.value.code == "42501"
    assert "row-level security" in (caught.value.message or "")


def test_rpc_scalar_and_set_returning_with_filters(signed_in, anon_client):
    assert anon_client().rpc("py_add", {"a": 2, "b": 40}).execute().data == 42

    db = signed_in("rpc").client
    db.table("py_items").insert(
        [{"name": "a", "qty": 1}, {"name": "b", "qty": 5}, {"name": "c", "qty": 9, "color": "blue"}]
    ).execute()
    rows = db.rpc("py_items_at_least", {"min_qty": 5}).select("name, qty").order("qty", desc=True).execute()
    assert rows.data == [{"name": "c", "qty": 9}, {"name": "b", "qty": 5}]
    blue = db.rpc("py_items_at_least", {"min_qty": 0}).eq("color", "blue").execute()
    assert [r["name"] for r in blue.data] == ["c"]
    counted = db.rpc("py_items_at_least", {"min_qty": 2}, count="exact").execute()
    assert counted.count == 2

    with pytest.raises(APIError) as caught:
        db.rpc("py_no_such_function", {}).execute()
    assert caught.value.code == "PGRST202"
