-- A draft remembers the published template it edits.
--
-- Pending and rejected rows carry original_template_id (approval then
-- replaces that template, keeping its id and counters); drafts did not, so a
-- rejected or pending edit saved as a draft lost the link, and submitting the
-- draft later published a second template instead of replacing the first.
--
-- The column is only a hint, checked at approval: policies/0004 lets a
-- creator write any value into their own draft (and policies/0005 into their
-- own pending row), but submit_template only carries an original the caller
-- owns, and admin_approve_template refuses to replace a template of another
-- user (`where t.user_id = excluded.user_id`, then its 42501 exception). So a
-- draft pointed at someone else's template can never change that template.
alter table public.templates_draft
  add column original_template_id uuid references public.templates (id) on delete set null;

comment on column public.templates_draft.original_template_id is
  'The published template this draft edits, if any: a hint carried into the pending row, checked at approval.';

-- Turns the caller's rejected template back into a draft under the same id,
-- keeping the published template it edits.
create or replace function public.save_rejected_as_draft(rejected_id uuid) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  r public.templates_rejected;
begin
  delete from public.templates_rejected
   where id = rejected_id and creator_id = auth.uid()
  returning * into r;
  if not found then
    raise exception 'Rejected template not found' using errcode = 'PT404';
  end if;
  insert into public.templates_draft (
    id, creator_id, title, description, about_template, price, price_in_cents, category_id, tags,
    preview_image_url, preview_images, template_file_url, template_url, features_included,
    requirements, original_template_id, last_edited_at)
  values (
    r.id, r.creator_id, left(r.title, 30), r.description, r.about_template, r.price,
    r.price_in_cents, r.category_id, r.tags, r.preview_image_url, r.preview_images,
    r.template_file_url, r.template_url, r.features_included, r.requirements,
    r.original_template_id, now());
  return r.id;
end $$;

-- Submits a template for review: inserts the pending row and, in the same
-- transaction, removes the draft it came from and the rejected record it
-- resubmits. `template` carries the template's fields (as the upload form
-- has them); the creator is always the caller. The published template it
-- edits comes from `template ->> 'original_template_id'`, else from the
-- rejected record, else (new here) from the draft; only one the caller owns.
create or replace function public.submit_template(
  template jsonb,
  draft_id uuid default null,
  rejected_id uuid default null
) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  original uuid;
  draft_original uuid;
  new_id uuid;
begin
  if uid is null then
    raise exception 'Sign in to submit a template' using errcode = '42501';
  end if;
  if rejected_id is not null then
    delete from public.templates_rejected r
     where r.id = rejected_id and r.creator_id = uid
    returning r.original_template_id into original;
    if not found then
      raise exception 'Rejected template not found' using errcode = 'PT404';
    end if;
  end if;
  if (template ->> 'original_template_id') is not null then
    -- Editing a published template: only its owner may.
    select t.id into original from public.templates t
     where t.id = (template ->> 'original_template_id')::uuid and t.user_id = uid;
    if not found then
      raise exception 'Template to edit not found' using errcode = 'PT404';
    end if;
  elsif original is null and draft_id is not null then
    -- A draft of an edit (saved from a rejected or pending one) stays an
    -- edit. Its column is only a hint: kept when the caller owns that
    -- template, dropped otherwise (approval would refuse it anyway).
    select d.original_template_id into draft_original from public.templates_draft d
     where d.id = draft_id and d.creator_id = uid;
    if draft_original is not null then
      select t.id into original from public.templates t
       where t.id = draft_original and t.user_id = uid;
    end if;
  end if;
  insert into public.templates_pending_approval (
    id, creator_id, title, description, about_template, price, price_in_cents, category_id,
    tags, preview_image_url, preview_images, template_file_url, template_url,
    features_included, requirements, status, original_template_id)
  values (
    coalesce(rejected_id, gen_random_uuid()), uid,
    template ->> 'title', template ->> 'description', template ->> 'about_template',
    coalesce((template ->> 'price')::numeric, 0),
    round(coalesce((template ->> 'price')::numeric, 0) * 100)::int,
    (template ->> 'category_id')::uuid,
    coalesce(array(select jsonb_array_elements_text(template -> 'tags')), '{}'),
    template ->> 'preview_image_url',
    coalesce(array(select jsonb_array_elements_text(template -> 'preview_images')), '{}'),
    template ->> 'template_file_url', template ->> 'template_url',
    coalesce(array(select jsonb_array_elements_text(template -> 'features_included')), '{}'),
    coalesce(array(select jsonb_array_elements_text(template -> 'requirements')), '{}'),
    'Pending Approval', original)
  returning id into new_id;
  if draft_id is not null then
    delete from public.templates_draft d where d.id = draft_id and d.creator_id = uid;
  end if;
  return new_id;
end $$;

-- `create or replace` keeps the grants, but say them again: only signed-in
-- callers reach the lifecycle functions.
revoke execute on function public.submit_template(jsonb, uuid, uuid),
  public.save_rejected_as_draft(uuid)
  from public, anon;
