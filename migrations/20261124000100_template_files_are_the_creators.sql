-- A template's file is an object in storage that belongs to its creator, and
-- a paid template's file is as private as its workspace link.
--
-- Before this file, `template_file_url` was any text: a creator could name
-- another creator's private file (in a submission, or as the link of a
-- template of their own) and the download functions signed whatever it
-- named; and the file of a PAID template (its path in the private bucket)
-- was readable by everyone in the public `templates` row. Now:
--
-- * `template_file_url` names a stored object, as '{bucket}/{path}' or any
--   storage URL of it ('.../storage/v1/object/[public/|authenticated/|sign/]
--   {bucket}/{path}'), in the bucket 'templates' or 'template-files', under
--   its creator's own folder ('{creator id}/...'), and (when the object
--   exists) uploaded by that creator. Checked on every write of the four
--   template tables; a file elsewhere is refused (22023 for a malformed or
--   misplaced name, 42501 for another user's file). A URL elsewhere is not a
--   file: links to other sites are `template_url` (see
--   20261124000200_template_links_are_web_links.sql).
-- * A pending submission of a paid template keeps its file in the private
--   bucket 'template-files' (the upload form stores it there).
-- * A paid published template's file is kept in `paid_template_links`
--   beside its workspace link, owner- and admin-readable only, and the
--   public row carries null (the trigger of 20261123000500 now moves both).
--   A published template made paid whose file is still in the public bucket
--   (the edit screen changes only the price) has that object moved to the
--   private bucket in the same transaction: storage keeps bytes by version,
--   not by name, so a move is an update of the object's row, as storage's
--   own move is. Made free again, both links are public again.
--
-- The download functions check the same again before they sign anything
-- (crates/functions/src/orders.rs), and never read a file out of
-- `template_url`.

-- ---------------------------------------------------------------------------
-- Naming a stored file

-- Percent-decoding of one part of a URL; null when the bytes it names are
-- not UTF-8. A '%' not followed by two hex digits stays as it is.
create function public.url_decode(part text) returns text
language plpgsql immutable parallel safe set search_path = ''
as $$
declare
  bytes bytea := '\x'::bytea;
  i integer := 1;
  n integer := length(part);
  c text;
begin
  while i <= n loop
    c := substr(part, i, 1);
    if c = '%' and substr(part, i + 1, 2) ~ '^[0-9A-Fa-f]{2}$' then
      bytes := bytes || decode(substr(part, i + 1, 2), 'hex');
      i := i + 3;
    else
      bytes := bytes || convert_to(c, 'UTF8');
      i := i + 1;
    end if;
  end loop;
  return convert_from(bytes, 'UTF8');
exception when character_not_in_repertoire or untranslatable_character then
  return null;
end $$;

-- The object a template_file_url names: (bucket, name), or nulls when it
-- names none. The same reading as `files::locate` of the functions: a
-- storage URL of any host, its query and fragment ignored, or a bare
-- '{bucket}/{name}'; any other URL or site path names no stored file.
create function public.stored_object(file text, out bucket text, out name text)
language plpgsql immutable parallel safe set search_path = ''
as $$
declare
  rest text := btrim(file);
  marker constant text := '/storage/v1/object/';
  at integer;
begin
  if rest is null or rest = '' then
    return;
  end if;
  at := position(marker in rest);
  if at > 0 then
    rest := regexp_replace(substr(rest, at + length(marker)), '^(public|authenticated|sign)/', '');
  elsif position('://' in rest) > 0 or left(rest, 1) = '/' then
    return;
  end if;
  rest := split_part(split_part(rest, '?', 1), '#', 1);
  if position('/' in rest) = 0 then
    return;
  end if;
  bucket := public.url_decode(split_part(rest, '/', 1));
  name := public.url_decode(substr(rest, position('/' in rest) + 1));
  if coalesce(bucket, '') = '' or coalesce(name, '') = '' then
    bucket := null;
    name := null;
  end if;
end $$;

-- What is wrong with `file` as the template file of `creator`'s template
-- (paid or not): (errcode, message), or nulls when nothing is.
create function public.template_file_problem(
  creator uuid, file text, paid boolean,
  out errcode text, out message text)
language plpgsql stable security definer set search_path = ''
as $$
declare
  f record;
  o record;
begin
  if file is null then
    return;
  end if;
  select * into f from public.stored_object(file);
  if f.bucket is null then
    errcode := '22023';
    message := 'A template file must be a file in storage: templates/{path} or template-files/{path}, or its storage URL.';
  elsif f.bucket not in ('templates', 'template-files') then
    errcode := '22023';
    message := 'A template file must be in the bucket templates or template-files.';
  elsif f.name ~ '(^|/)\.{0,2}(/|$)' or position(E'\\' in f.name) > 0 then
    errcode := '22023';
    message := 'A template file''s path may not have empty, ''.'' or ''..'' parts.';
  elsif split_part(f.name, '/', 1) is distinct from creator::text then
    errcode := '42501';
    message := 'A template file must be in its creator''s own folder.';
  else
    select ob.owner, ob.owner_id into o
      from storage.objects ob where ob.bucket_id = f.bucket and ob.name = f.name;
    if found and ((o.owner is not null and o.owner <> creator)
                  or (o.owner_id is not null and o.owner_id <> creator::text)) then
      errcode := '42501';
      message := 'A template file must be uploaded by its creator.';
    elsif paid and f.bucket <> 'template-files' then
      errcode := '22023';
      message := 'The file of a paid template must be in the private bucket template-files.';
    end if;
  end if;
end $$;

-- Raises the problem of template_file_problem, if any.
create function public.check_template_file(creator uuid, file text, paid boolean) returns void
language plpgsql stable security definer set search_path = ''
as $$
declare
  p record;
begin
  p := public.template_file_problem(creator, file, paid);
  if p.errcode is not null then
    raise exception '%', p.message using errcode = p.errcode,
      hint = 'Upload the file to your own folder ({your user id}/...) and name it as stored.';
  end if;
end $$;

revoke execute on function public.template_file_problem(uuid, text, boolean),
  public.check_template_file(uuid, text, boolean) from public, anon, authenticated;

-- ---------------------------------------------------------------------------
-- Drafts, submissions and rejections: the creator's own files; a paid
-- submission's file in the private bucket.

create function public.template_rows_check_file() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform public.check_template_file(
    new.creator_id, new.template_file_url,
    tg_table_name = 'templates_pending_approval' and round(coalesce(new.price, 0) * 100) > 0);
  return new;
end $$;
revoke execute on function public.template_rows_check_file() from public, anon, authenticated;

create trigger templates_draft_check_file
  before insert or update of template_file_url, creator_id on public.templates_draft
  for each row execute function public.template_rows_check_file();
create trigger templates_pending_check_file
  before insert or update of template_file_url, creator_id, price, price_in_cents
  on public.templates_pending_approval
  for each row execute function public.template_rows_check_file();
create trigger templates_rejected_check_file
  before insert or update of template_file_url, creator_id on public.templates_rejected
  for each row execute function public.template_rows_check_file();

-- ---------------------------------------------------------------------------
-- Published templates: the file of a paid one is kept apart with its link.

alter table public.paid_template_links
  alter column template_url drop not null,
  add column template_file_url text,
  add constraint paid_template_links_something check (template_url is not null or template_file_url is not null);

comment on table public.paid_template_links is
  'The workspace link and the stored file of each paid template, out of its public row; read by its creator, admins and the functions.';

-- Moves the object `name` of the public bucket to the private one, with
-- every row of its creator that names it; returns the new template_file_url.
create function public.move_template_file_to_private(creator uuid, object_name text) returns text
language plpgsql security definer set search_path = ''
as $$
declare
  moved text := 'template-files/'
    || replace(replace(replace(object_name, '%', '%25'), '?', '%3F'), '#', '%23');
begin
  if exists (select 1 from storage.objects where bucket_id = 'template-files' and name = object_name) then
    raise exception 'A file named % is already in the private bucket', object_name
      using errcode = '23505', hint = 'Upload the paid template''s file again.';
  end if;
  update storage.objects set bucket_id = 'template-files', updated_at = now()
   where bucket_id = 'templates' and name = object_name;
  -- Submissions and drafts of the creator that share the file follow it.
  update public.templates_draft set template_file_url = moved
   where creator_id = creator and (public.stored_object(template_file_url)).bucket = 'templates'
     and (public.stored_object(template_file_url)).name = object_name;
  update public.templates_pending_approval set template_file_url = moved
   where creator_id = creator and (public.stored_object(template_file_url)).bucket = 'templates'
     and (public.stored_object(template_file_url)).name = object_name;
  update public.templates_rejected set template_file_url = moved
   where creator_id = creator and (public.stored_object(template_file_url)).bucket = 'templates'
     and (public.stored_object(template_file_url)).name = object_name;
  return moved;
end $$;
revoke execute on function public.move_template_file_to_private(uuid, text) from public, anon, authenticated;

create or replace function public.templates_keep_paid_link_private() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  -- price_in_cents is derived from price by a trigger that runs after this one.
  paid boolean := round(new.price * 100) > 0;
  f record;
  kept_url text;
  kept_file text;
begin
  perform public.check_template_file(new.user_id, new.template_file_url, false);
  if paid then
    select * into f from public.stored_object(new.template_file_url);
    if f.bucket = 'templates' then
      new.template_file_url := public.move_template_file_to_private(new.user_id, f.name);
      -- Other templates of the creator that give the same file away keep
      -- giving it (free templates may use the private bucket: the functions sign it).
      update public.templates set template_file_url = new.template_file_url
       where user_id = new.user_id and id <> new.id and template_file_url is not null
         and (public.stored_object(template_file_url)).bucket = 'templates'
         and (public.stored_object(template_file_url)).name = f.name;
    end if;
    if new.template_url is not null or new.template_file_url is not null then
      insert into public.paid_template_links as l (template_id, template_url, template_file_url)
      values (new.id, new.template_url, new.template_file_url)
      on conflict (template_id) do update
        set template_url = coalesce(excluded.template_url, l.template_url),
            template_file_url = coalesce(excluded.template_file_url, l.template_file_url),
            updated_at = now();
      new.template_url := null;
      new.template_file_url := null;
    end if;
  elsif tg_op = 'UPDATE' then
    -- Free now: its links are public again, as every free template's are.
    delete from public.paid_template_links where template_id = new.id
    returning template_url, template_file_url into kept_url, kept_file;
    new.template_url := coalesce(new.template_url, kept_url);
    new.template_file_url := coalesce(new.template_file_url, kept_file);
  end if;
  return new;
end $$;
revoke execute on function public.templates_keep_paid_link_private() from public, anon, authenticated;

drop trigger templates_keep_paid_link_private on public.templates;
create trigger templates_keep_paid_link_private
  before insert or update of template_url, template_file_url, price, price_in_cents, user_id
  on public.templates
  for each row execute function public.templates_keep_paid_link_private();

-- ---------------------------------------------------------------------------
-- The rows written before this file.

-- A file that is a URL elsewhere was a link: it becomes the template's link
-- when it has none (20261124000200 then keeps only web links).
update public.templates_draft set template_url = coalesce(template_url, template_file_url), template_file_url = null
 where template_file_url is not null and (public.stored_object(template_file_url)).bucket is null;
update public.templates_pending_approval set template_url = coalesce(template_url, template_file_url), template_file_url = null
 where template_file_url is not null and (public.stored_object(template_file_url)).bucket is null;
update public.templates_rejected set template_url = coalesce(template_url, template_file_url), template_file_url = null
 where template_file_url is not null and (public.stored_object(template_file_url)).bucket is null;
update public.templates set template_url = coalesce(template_url, template_file_url), template_file_url = null
 where template_file_url is not null and (public.stored_object(template_file_url)).bucket is null;

-- A file that is not its creator's is dropped: no row may give it away.
update public.templates_draft set template_file_url = null
 where (public.template_file_problem(creator_id, template_file_url, false)).errcode is not null;
update public.templates_pending_approval set template_file_url = null
 where (public.template_file_problem(creator_id, template_file_url, false)).errcode is not null;
update public.templates_rejected set template_file_url = null
 where (public.template_file_problem(creator_id, template_file_url, false)).errcode is not null;
update public.templates set template_file_url = null
 where (public.template_file_problem(user_id, template_file_url, false)).errcode is not null;

-- Paid templates' files leave their public rows (and the public bucket).
update public.templates set template_file_url = template_file_url
 where price_in_cents > 0 and template_file_url is not null;
