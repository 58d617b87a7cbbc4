-- A creator hears of an admin's decision on their submission as it is made:
-- when a pending template's status becomes 'Active' (approved) or 'Rejected',
-- a broadcast `template_reviewed` goes to the creator's private channel
-- `creator:{creator id}`, which only that creator may join
-- (policies/0401_realtime_messages.sql). The app shows it as a toast and
-- re-reads the dashboard.
--
-- The review status lives on `templates_pending_approval` ('Pending
-- Approval', 'Active', 'Rejected'; the reason in `rejection_comment`):
-- `templates.status` is always 'published'. Rejection already sets it
-- (admin_reject_template updates the pending row before moving it to the
-- rejected store); approval copied the row into `templates` and deleted it
-- without ever marking it, so admin_approve_template now sets 'Active' on the
-- pending row first, in the same transaction. Only admins update pending rows
-- (policies/0005), so only their decisions are announced.
--
-- realtime.send writes a row into realtime.messages, which is relayed to
-- every node at commit: a decision that rolls back announces nothing. The
-- trigger function is `security definer` because no client role may insert
-- into realtime.messages (realtime.send only warns when the insert fails).
--
-- The payload: template_id (the published template's id when approved, the
-- rejected record's id when rejected: the same id as the submission unless it
-- edited a published template), title, status ('approved' or 'rejected') and
-- rejection_reason (null when approved).

create function public.notify_template_reviewed() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  approved boolean := new.status = 'Active';
begin
  perform realtime.send(
    jsonb_build_object(
      'template_id', case when approved then coalesce(new.original_template_id, new.id) else new.id end,
      'title', new.title,
      'status', case when approved then 'approved' else 'rejected' end,
      'rejection_reason', case when approved then null else new.rejection_comment end),
    'template_reviewed',
    'creator:' || new.creator_id::text,
    true);
  return null;
end $$;
revoke execute on function public.notify_template_reviewed() from public, anon, authenticated;

create trigger templates_pending_notify_reviewed
  after update of status on public.templates_pending_approval
  for each row
  when (new.status is distinct from old.status and new.status in ('Active', 'Rejected'))
  execute function public.notify_template_reviewed();

-- As in 20261122000010_marketplace_functions.sql, with the pending row marked
-- 'Active' before it is removed (the step the trigger above hears).
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
