-- Issue 44, item 3: an admin could approve a template that has nothing to
-- download, and its buyers then got "No download available". A template is
-- downloadable when it has a stored file (`template_file_url`, which triggers
-- keep an object in its creator's own folder) or a link (`template_url`, which
-- a CHECK keeps a web link): exactly what the download functions hand out
-- (crates/marketplace/src/orders.rs, `links`). Approval now refuses a
-- submission with neither, with P0001, which the REST API answers as a 400
-- carrying the message; the app shows the same words and disables Approve.
--
-- And "Active Creators" on Home counted every account, buyers too: the view
-- `creator_listing` lists only profiles with at least one published template,
-- with that count and the downloads they made, so Home counts its rows and the
-- Creators page pages, searches and sorts them on the server.

-- As in 20261125000100_template_review_notifications.sql, with the check.
create or replace function public.admin_approve_template(pending_template_id uuid) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  p public.templates_pending_approval;
  published_id uuid;
begin
  if not public.is_admin(auth.uid()) then
    raise exception 'Only admins may approve templates' using errcode = '42501';
  end if;
  select * into p from public.templates_pending_approval where id = pending_template_id for update;
  if not found then
    raise exception 'Pending template not found' using errcode = 'PT404';
  end if;
  if nullif(btrim(coalesce(p.template_file_url, '')), '') is null
     and nullif(btrim(coalesce(p.template_url, '')), '') is null then
    raise exception 'This template has no file or link to download; ask the creator to add one'
      using errcode = 'P0001';
  end if;
  insert into public.templates as t (
    id, user_id, title, description, about_template, price, price_in_cents, category_id, tags,
    preview_image_url, preview_images, template_file_url, template_url, features_included,
    requirements, status, is_published, author)
  values (
    coalesce(p.original_template_id, p.id), p.creator_id, p.title, p.description,
    p.about_template, p.price, p.price_in_cents, p.category_id, p.tags, p.preview_image_url,
    p.preview_images, p.template_file_url, p.template_url, p.features_included, p.requirements,
    'published', true,
    (select coalesce(pr.display_name, pr.username) from public.profiles pr where pr.id = p.creator_id))
  on conflict (id) do update set
    title = excluded.title, description = excluded.description,
    about_template = excluded.about_template, price = excluded.price,
    price_in_cents = excluded.price_in_cents, category_id = excluded.category_id,
    tags = excluded.tags, preview_image_url = excluded.preview_image_url,
    preview_images = excluded.preview_images, template_file_url = excluded.template_file_url,
    template_url = excluded.template_url, features_included = excluded.features_included,
    requirements = excluded.requirements, status = 'published', is_published = true
  where t.user_id = excluded.user_id
  returning t.id into published_id;
  if published_id is null then
    raise exception 'The template this submission edits belongs to someone else' using errcode = '42501';
  end if;
  update public.templates_pending_approval set status = 'Active' where id = p.id;
  delete from public.templates_pending_approval where id = p.id;
  return published_id;
end $$;

revoke execute on function public.admin_approve_template(uuid) from public, anon;

-- The creators of the marketplace: profiles with at least one published
-- template. security_invoker: the caller's row-level security applies (both
-- profiles and published templates are public). `sort_name` is the name the
-- Creators page sorts by (display name, else username, lower case).
create view public.creator_listing with (security_invoker = true) as
select pr.id,
       pr.username,
       pr.display_name,
       pr.avatar_url,
       pr.bio,
       pr.created_at,
       count(t.id)::int as template_count,
       coalesce(sum(t.downloads_count), 0)::int as total_downloads,
       false as is_certified,
       lower(coalesce(nullif(btrim(pr.display_name), ''), pr.username, '')) as sort_name
  from public.profiles pr
  join public.templates t on t.user_id = pr.id and t.is_published
 group by pr.id;

grant select on public.creator_listing to anon, authenticated;
