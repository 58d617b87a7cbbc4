-- New versions of published templates (issue 44, item 6).
--
-- A published template was frozen: its creator could edit its text and
-- price, but not fix a broken file or a bad preview without a new review.
-- Now the creator (and only the creator) may replace the file and the
-- previews of a published template as a new version with a changelog line,
-- through `add_template_version`, which checks the caller owns the
-- template, checks every new file as the template tables' triggers do, and
-- writes the template and the version in one transaction.
--
-- * Versions: `template_versions` (template, number, changelog line, what
--   changed, the new file's name, when). The first published file is
--   version 1 and has no row; the first replacement is version 2. Whoever
--   can read the template reads its versions (the template page says
--   "Updated on ..." with the latest line). A version keeps the file's name
--   only, never its path: a paid file's path stays as private as in
--   `paid_template_links`. Rows are written only by the function.
-- * Buyers keep the latest file: downloads are signed from the template's
--   file as it is now (crates/marketplace `orders::links`), never from what
--   it was when bought. An order's remembered public link
--   (`orders.download_url`, kept for free orders) would still name the old
--   file, so a new file clears it on the template's orders; their download
--   pages then ask validate-download, which signs the current one.
-- * A paid template's new file must be in the private bucket
--   'template-files' (`check_template_file` with paid = true); the
--   templates trigger keeps it in `paid_template_links`, out of the public row.
-- * Previews: each is one the template already shows, or an image the
--   creator uploaded to their own folder of the public bucket 'templates',
--   kept as the site path of its public URL (never another site's address:
--   the template page would load it from there).

create table public.template_versions (
  id uuid primary key default gen_random_uuid(),
  template_id uuid not null references public.templates (id) on delete cascade,
  version integer not null constraint template_versions_after_first check (version >= 2),
  changelog text not null
    constraint template_versions_changelog_length check (char_length(changelog) between 1 and 200),
  file_changed boolean not null default false,
  previews_changed boolean not null default false,
  -- The new file's name (its last path part), when the file changed.
  file_name text,
  created_at timestamptz not null default now(),
  constraint template_versions_number unique (template_id, version)
);

comment on table public.template_versions is
  'Versions of published templates after the first: a changelog line per replacement of the file or the previews (add_template_version).';

alter table public.template_versions enable row level security;
revoke insert, update, delete, truncate on public.template_versions from anon, authenticated;

-- What `url` becomes as a preview of `creator`'s template showing
-- `current_urls`: a URL it shows now stays as it is; an image the creator
-- uploaded to their own folder of the public bucket 'templates' becomes the
-- site path of its public URL ('/storage/v1/object/public/templates/...'),
-- whatever host the caller wrote, so a preview never loads from another
-- site; anything else is null (refused).
create function public.template_preview_url(creator uuid, current_urls text[], url text)
returns text
language plpgsql stable security definer set search_path = ''
as $$
declare
  f record;
begin
  if url is null or btrim(url) = '' then
    return null;
  end if;
  if url = any (current_urls) then
    return url;
  end if;
  select * into f from public.stored_object(url);
  if f.bucket is distinct from 'templates'
     or split_part(f.name, '/', 1) is distinct from creator::text
     or f.name ~ '(^|/)\.{0,2}(/|$)' or position(E'\\' in f.name) > 0 then
    return null;
  end if;
  if not exists (
    select 1 from storage.objects o
     where o.bucket_id = 'templates' and o.name = f.name
       and (o.owner is null or o.owner = creator)
       and (o.owner_id is null or o.owner_id = creator::text)) then
    return null;
  end if;
  return '/storage/v1/object/public/templates/'
    || replace(replace(replace(replace(f.name, '%', '%25'), '?', '%3F'), '#', '%23'), ' ', '%20');
end $$;
revoke execute on function public.template_preview_url(uuid, text[], text) from public, anon, authenticated;

-- Adds a version to the caller's published template `template_id`: a new
-- file (`new_file`, as template_file_url names one; null keeps the file),
-- a new main preview (null keeps it) and new additional previews (null
-- keeps them; an empty list removes them), with a changelog line. Answers
-- {version, changelog, created_at}.
create function public.add_template_version(
  template_id uuid,
  changelog text,
  new_file text default null,
  new_preview_image_url text default null,
  new_preview_images text[] default null)
returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  caller uuid := auth.uid();
  t record;
  current_file text;
  line text := btrim(coalesce(changelog, ''));
  f record;
  file_changed boolean := false;
  new_file_name text;
  previews_changed boolean := false;
  shown text[];
  url text;
  main_preview text;
  previews text[];
  kept text;
  next_version integer;
  made timestamptz := now();
begin
  if caller is null then
    raise exception 'Sign in to update a template.' using errcode = '42501';
  end if;
  select tp.id, tp.user_id, tp.price_in_cents, tp.is_published, tp.status,
         tp.template_file_url, tp.preview_image_url, tp.preview_images
    into t from public.templates tp where tp.id = add_template_version.template_id for update;
  if not found then
    raise exception 'Template not found' using errcode = 'P0002';
  end if;
  if t.user_id <> caller then
    raise exception 'Only the template''s creator can publish a new version of it.' using errcode = '42501';
  end if;
  if not (t.is_published and t.status = 'published') then
    raise exception 'Only a published template gets new versions; edit the submission instead.' using errcode = '22023';
  end if;
  if line = '' or char_length(line) > 200 then
    raise exception 'Describe what changed in one line of at most 200 characters.' using errcode = '22023';
  end if;

  select coalesce(t.template_file_url, l.template_file_url) into current_file
    from (select 1) one left join public.paid_template_links l on l.template_id = t.id;

  -- The file: the creator's own stored object, private when the template is paid.
  if new_file is not null and new_file is distinct from current_file then
    perform public.check_template_file(caller, new_file, t.price_in_cents > 0);
    select * into f from public.stored_object(new_file);
    if not exists (select 1 from storage.objects o where o.bucket_id = f.bucket and o.name = f.name) then
      raise exception 'The new file is not in storage yet: upload it first.' using errcode = '22023';
    end if;
    file_changed := true;
    new_file_name := regexp_replace(f.name, '^.*/', '');
  end if;

  -- The previews: ones shown now, or the creator's own uploads.
  shown := array_remove(array[t.preview_image_url] || t.preview_images, null);
  main_preview := t.preview_image_url;
  if new_preview_image_url is not null and new_preview_image_url is distinct from t.preview_image_url then
    main_preview := public.template_preview_url(caller, shown, new_preview_image_url);
    if main_preview is null then
      raise exception 'A preview must be an image you uploaded to your own folder.' using errcode = '42501';
    end if;
    previews_changed := true;
  end if;
  previews := t.preview_images;
  if new_preview_images is not null and new_preview_images is distinct from t.preview_images then
    if cardinality(new_preview_images) > 6 then
      raise exception 'You can only upload up to 6 total preview images.' using errcode = '22023';
    end if;
    previews := '{}';
    foreach url in array new_preview_images loop
      kept := public.template_preview_url(caller, shown, url);
      if kept is null then
        raise exception 'A preview must be an image you uploaded to your own folder.' using errcode = '42501';
      end if;
      previews := previews || kept;
    end loop;
    previews_changed := true;
  end if;

  if not (file_changed or previews_changed) then
    raise exception 'Nothing to update: choose a new file or new preview images.' using errcode = '22023';
  end if;

  update public.templates tp
     set template_file_url = case when file_changed then new_file else tp.template_file_url end,
         preview_image_url = main_preview,
         preview_images = previews,
         updated_at = made
   where tp.id = t.id;

  if file_changed then
    -- Buyers' download pages ask for the current file (see above).
    update public.orders o set download_url = null, updated_at = made
     where o.product_id = t.id and o.download_url is not null;
  end if;

  select coalesce(max(v.version), 1) + 1 into next_version
    from public.template_versions v where v.template_id = t.id;
  insert into public.template_versions
    (template_id, version, changelog, file_changed, previews_changed, file_name, created_at)
  values (t.id, next_version, line, file_changed, previews_changed,
          new_file_name, made);

  return jsonb_build_object('version', next_version, 'changelog', line, 'created_at', made);
end $$;

revoke execute on function public.add_template_version(uuid, text, text, text, text[]) from public, anon;
grant execute on function public.add_template_version(uuid, text, text, text, text[]) to authenticated;
