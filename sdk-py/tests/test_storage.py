"""Storage through supabase-py's storage3 client against /storage/v1:
buckets, uploads and downloads, listings (with folders), signed URLs and
removal."""

import secrets
import time

import httpx
import pytest
from storage3.exceptions import StorageApiError

from support.helpers import claims


def bucket_name(tag: str) -> str:
    return f"py-{tag}-{secrets.token_hex(4)}"


def test_buckets_create_get_list_update_empty_delete(service_client, sql):
    storage = service_client.storage
    name = bucket_name("buckets")
    created = storage.create_bucket(name, options={"public": False, "file_size_limit": 1024, "allowed_mime_types": ["text/plain"]})
    assert created["name"] == name

    bucket = storage.get_bucket(name)
    assert bucket.id == name
    assert bucket.public is False
    assert bucket.file_size_limit == 1024
    assert bucket.allowed_mime_types == ["text/plain"]
    assert name in [b.name for b in storage.list_buckets()]

    storage.update_bucket(name, {"public": True, "file_size_limit": 2048})
    updated = storage.get_bucket(name)
    assert updated.public is True
    assert updated.file_size_limit == 2048
    assert sql("select public, file_size_limit from storage.buckets where id = %s", (name,)) == [
        {"public": True, "file_size_limit": 2048}
    ]

    # The bucket's limits hold for uploads.
    with pytest.raises(StorageApiError) as too_big:
        storage.from_(name).upload("big.txt", b"x" * 4096, {"content-type": "text/plain"})
    assert str(too_big.value.status) == "413"
    with pytest.raises(StorageApiError) as wrong_type:
        storage.from_(name).upload("pic.png", b"\x89PNG", {"content-type": "image/png"})
    assert str(wrong_type.value.status) == "415"

    storage.from_(name).upload("note.txt", b"hello", {"content-type": "text/plain"})
    with pytest.raises(StorageApiError):
        storage.delete_bucket(name)  # not empty
    storage.empty_bucket(name)
    storage.delete_bucket(name)
    assert name not in [b.name for b in storage.list_buckets()]
    with pytest.raises(StorageApiError) as gone:
        storage.get_bucket(name)
    assert str(gone.value.status) in ("400", "404")


def test_upload_download_update_move_copy_info(service_client, sql):
    storage = service_client.storage
    name = bucket_name("objects")
    storage.create_bucket(name)
    files = storage.from_(name)

    uploaded = files.upload("docs/readme.txt", b"first version", {"content-type": "text/plain", "cache-control": "60"})
    assert uploaded.path == "docs/readme.txt"
    assert uploaded.full_path == f"{name}/docs/readme.txt"
    assert files.download("docs/readme.txt") == b"first version"

    # A second upload to the same path is refused unless it upserts.
    with pytest.raises(StorageApiError) as exists:
        files.upload("docs/readme.txt", b"again", {"content-type": "text/plain"})
    assert str(exists.value.status) in ("400", "409")
    files.upload("docs/readme.txt", b"upserted", {"content-type": "text/plain", "upsert": "true"})
    assert files.download("docs/readme.txt") == b"upserted"
    files.update("docs/readme.txt", b"updated", {"content-type": "text/plain"})
    assert files.download("docs/readme.txt") == b"updated"

    info = files.info("docs/readme.txt")
    assert info["name"] == "docs/readme.txt"
    assert info["size"] == len(b"updated")
    assert info["content_type"].startswith("text/plain")
    assert files.exists("docs/readme.txt") is True
    assert files.exists("docs/missing.txt") is False

    files.copy("docs/readme.txt", "docs/copy.txt")
    files.move("docs/copy.txt", "archive/moved.txt")
    assert files.download("archive/moved.txt") == b"updated"
    assert not files.exists("docs/copy.txt")
    stored = sql("select name from storage.objects where bucket_id = %s order by name", (name,))
    assert [r["name"] for r in stored] == ["archive/moved.txt", "docs/readme.txt"]

    # A public bucket's object is served without a token at its public URL.
    public = bucket_name("public")
    storage.create_bucket(public, options={"public": True})
    storage.from_(public).upload("hello.txt", b"public bytes", {"content-type": "text/plain"})
    url = storage.from_(public).get_public_url("hello.txt")
    assert url.endswith(f"/storage/v1/object/public/{public}/hello.txt")
    assert httpx.get(url).content == b"public bytes"


def test_list_a_folder_with_subfolders(service_client):
    storage = service_client.storage
    name = bucket_name("list")
    storage.create_bucket(name)
    files = storage.from_(name)
    for path in ["top.txt", "docs/a.txt", "docs/b.txt", "docs/sub/c.txt", "docs/sub/deeper/d.txt", "docs/other/e.txt"]:
        files.upload(path, path.encode(), {"content-type": "text/plain"})

    # list(): the folder's files and its subfolders (entries without an id).
    listed = files.list("docs")
    by_name = {entry["name"]: entry for entry in listed}
    assert sorted(by_name) == ["a.txt", "b.txt", "other", "sub"]
    assert by_name["sub"]["id"] is None
    assert by_name["other"]["id"] is None
    assert by_name["a.txt"]["id"] is not None
    assert by_name["a.txt"]["metadata"]["size"] == len(b"docs/a.txt")
    # Folders and files sort together: sub, other, b.txt, a.txt.
    assert [e["name"] for e in files.list("docs", {"limit": 2, "offset": 1, "sortBy": {"column": "name", "order": "desc"}})] == [
        "other",
        "b.txt",
    ]
    assert [e["name"] for e in files.list("docs", {"search": "b"})] == ["b.txt"]
    assert sorted(e["name"] for e in files.list()) == ["docs", "top.txt"]

    # list_v2 with the delimiter: folders and objects, each entry as the
    # client models it (SearchV2Folder, SearchV2Object), keys included.
    page = files.list_v2({"prefix": "docs/", "with_delimiter": True})
    assert page.hasNext is False
    folder_names = [f.name for f in page.folders]
    assert [n.rstrip("/").split("/")[-1] for n in folder_names] == ["other", "sub"]
    for folder in page.folders:
        assert folder.key is not None, f"folder entry without key: {folder!r}"
        assert folder.key.rstrip("/").split("/")[-1] == folder.name.rstrip("/").split("/")[-1]
    assert sorted(o.name.split("/")[-1] for o in page.objects) == ["a.txt", "b.txt"]
    for obj in page.objects:
        assert obj.key is not None
        assert obj.name.endswith(obj.key)

    # Paged without the delimiter: every object below the prefix, by name.
    first = files.list_v2({"prefix": "docs/", "limit": 3})
    assert first.hasNext is True
    assert first.nextCursor
    rest = files.list_v2({"prefix": "docs/", "limit": 3, "cursor": first.nextCursor})
    assert rest.hasNext is False
    assert [o.name for o in first.objects + rest.objects] == [
        "docs/a.txt",
        "docs/b.txt",
        "docs/other/e.txt",
        "docs/sub/c.txt",
        "docs/sub/deeper/d.txt",
    ]


def test_signed_urls_expire_in_the_seconds_asked(service_client, plinth):
    storage = service_client.storage
    name = bucket_name("signed")
    storage.create_bucket(name)
    files = storage.from_(name)
    files.upload("secret/report.txt", b"signed bytes", {"content-type": "text/plain"})
    files.upload("secret/other.txt", b"other bytes", {"content-type": "text/plain"})

    # Private: no token, no object.
    assert httpx.get(f"{plinth.url}/storage/v1/object/public/{name}/secret/report.txt").status_code in (400, 404)

    signed = files.create_signed_url("secret/report.txt", 60)
    url = signed["signedURL"]
    assert url.startswith(f"{plinth.url}/storage/v1/object/sign/{name}/secret/report.txt?token=")
    assert httpx.get(url).content == b"signed bytes"

    # The token lives expires_in seconds: its exp is 60 s after its iat.
    token = claims(url.split("token=")[1].split("&")[0])
    assert token["exp"] - token["iat"] == 60
    assert token["url"] == f"{name}/secret/report.txt"

    downloadable = files.create_signed_url("secret/report.txt", 60, {"download": "renamed.txt"})
    response = httpx.get(downloadable["signedURL"])
    assert response.content == b"signed bytes"
    assert response.headers["content-disposition"] == "attachment; filename=renamed.txt; filename*=UTF-8''renamed.txt"

    many = files.create_signed_urls(["secret/report.txt", "secret/other.txt", "secret/missing.txt"], 120)
    assert [m["path"] for m in many] == ["secret/report.txt", "secret/other.txt", "secret/missing.txt"]
    assert httpx.get(many[1]["signedURL"]).content == b"other bytes"
    assert many[2]["signedURL"] is None
    assert many[2]["error"]

    short = files.create_signed_url("secret/report.txt", 1)
    time.sleep(2.1)
    expired = httpx.get(short["signedURL"])
    assert expired.status_code == 400
    assert "exp" in expired.text.lower()


def test_remove(service_client, sql):
    storage = service_client.storage
    name = bucket_name("remove")
    storage.create_bucket(name)
    files = storage.from_(name)
    for path in ["a.txt", "b.txt", "keep.txt"]:
        files.upload(path, path.encode(), {"content-type": "text/plain"})
    removed = files.remove(["a.txt", "b.txt", "never-there.txt"])
    assert sorted(r["name"] for r in removed) == ["a.txt", "b.txt"]
    assert sql("select name from storage.objects where bucket_id = %s", (name,)) == [{"name": "keep.txt"}]
    with pytest.raises(StorageApiError) as gone:
        files.download("a.txt")
    assert str(gone.value.status) in ("400", "404")


def test_user_uploads_under_storage_policies(signed_in, sql):
    """A signed-in user's upload runs under storage.objects' policies."""
    user = signed_in("storage")
    name = bucket_name("own")
    sql("insert into storage.buckets (id, name) values (%s, %s)", (name, name))
    sql(
        f"""create policy "py own {name}" on storage.objects for all to authenticated
            using (bucket_id = '{name}' and owner_id = auth.uid()::text)
            with check (bucket_id = '{name}' and (storage.foldername(name))[1] = auth.uid()::text)"""
    )
    files = user.client.storage.from_(name)
    files.upload(f"{user.id}/mine.txt", b"mine", {"content-type": "text/plain"})
    assert files.download(f"{user.id}/mine.txt") == b"mine"
    assert sql("select owner_id from storage.objects where bucket_id = %s", (name,)) == [{"owner_id": user.id}]
    with pytest.raises(StorageApiError) as refused:
        files.upload("someone-else/theirs.txt", b"no", {"content-type": "text/plain"})
    assert str(refused.value.status) in ("400", "403")
    assert [e["name"] for e in files.list(user.id)] == ["mine.txt"]
