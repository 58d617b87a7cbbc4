-- The storage service's metadata, with the hosted platform's table, column
-- and function names so that seed SQL and policies written for the platform
-- run unchanged. Bytes live outside the database (opendal); a row here is the
-- authority on whether an object exists and who may see it.

create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;

create table storage.buckets (
  id                 text primary key,
  name               text not null,
  -- deprecated on the platform in favour of owner_id; kept for old policies
  owner              uuid,
  -- the `sub` of the JWT that created the bucket
  owner_id           text,
  public             boolean not null default false,
  -- bytes; null: only the global limit applies
  file_size_limit    bigint check (file_size_limit is null or file_size_limit >= 0),
  -- e.g. {image/png, image/*}; null: any type
  allowed_mime_types text[],
  type               text not null default 'STANDARD' check (type in ('STANDARD')),
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now(),
  constraint buckets_name_key unique (name)
);

create table storage.objects (
  id               uuid primary key default gen_random_uuid(),
  bucket_id        text not null references storage.buckets (id),
  name             text not null,
  owner            uuid,
  owner_id         text,
  -- size, mimetype, cacheControl, eTag, lastModified, contentLength, httpStatusCode
  metadata         jsonb,
  -- what the uploader sent as x-metadata / the metadata form field
  user_metadata    jsonb,
  path_tokens      text[] generated always as (string_to_array(name, '/')) stored,
  -- names the bytes in the byte store: every write gets a new version, so a
  -- row never points at bytes that a concurrent write is replacing
  version          text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  last_accessed_at timestamptz not null default now(),
  constraint bucketid_objname unique (bucket_id, name)
);

create index objects_bucket_id_name_pattern on storage.objects (bucket_id, name text_pattern_ops);

alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;

-- Grants let every API role reach the tables; row-level security policies
-- (none here: a project writes its own in policies/) decide which rows.
-- service_role bypasses row-level security.
grant select, insert, update, delete on storage.buckets to anon, authenticated, service_role;
grant select, insert, update, delete on storage.objects to anon, authenticated, service_role;

-- Deleting object rows directly (for instance through the REST gateway)
-- would leave their bytes behind; the storage service marks its own delete
-- transactions with `storage.allow_delete_query`, as the platform does.
create function storage.protect_delete() returns trigger
language plpgsql
as $$
begin
  if coalesce(current_setting('storage.allow_delete_query', true), '') <> 'true' then
    raise exception 'Direct deletion from storage tables is not allowed. Use the Storage API instead.'
      using errcode = '42501',
            hint = 'Delete objects through /storage/v1 so that their bytes are removed too.';
  end if;
  return null;
end
$$;

create trigger protect_objects_delete
  before delete on storage.objects
  for each statement execute function storage.protect_delete();

-- Policy helpers. For 'a/b/c.png': foldername -> {a,b}, filename -> 'c.png',
-- extension -> 'png' (like the platform: the whole file name when it has no dot).
create function storage.foldername(name text) returns text[]
language sql immutable
as $$
  select (string_to_array(name, '/'))[1:cardinality(string_to_array(name, '/')) - 1]
$$;

create function storage.filename(name text) returns text
language sql immutable
as $$
  select (string_to_array(name, '/'))[cardinality(string_to_array(name, '/'))]
$$;

create function storage.extension(name text) returns text
language sql immutable
as $$
  select reverse(split_part(reverse(storage.filename(name)), '.', 1))
$$;

grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text)
  to anon, authenticated, service_role;
