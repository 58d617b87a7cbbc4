-- Triggers, views and RPC functions of the marketplace.
--
-- Every multi-step transition of a template's life (approve, reject, save a
-- rejected template as a draft, submit, delete) is one function, so it
-- happens whole or not at all. Functions that must touch rows the caller may
-- not touch directly are `security definer` with an empty search path, and
-- check who is calling first.
--
-- Errors carry the status the gateway should answer with: 42501 (401/403)
-- for a caller who may not, 22023 (400) for a bad argument, and PostgREST's
-- custom 'PT404' (404) for a row that is not there or not the caller's
-- (plain P0002 would be a 500).

-- ---------------------------------------------------------------------------
-- Helpers

-- Whether `uid` is an admin (a row in public.admins). It answers only for
-- the caller themself (or the service role): like the admins table, it must
-- not tell anyone who else is an admin.
create function public.is_admin(uid uuid default auth.uid()) returns boolean
language sql stable security definer set search_path = ''
as $$
  select exists (select 1 from public.admins a where a.user_id = uid)
     and (uid is not distinct from auth.uid() or auth.role() is not distinct from 'service_role')
$$;

create function public.touch_updated_at() returns trigger
language plpgsql set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end $$;

create trigger profiles_touch before update on public.profiles
  for each row execute function public.touch_updated_at();
create trigger templates_touch before update on public.templates
  for each row execute function public.touch_updated_at();
create trigger templates_draft_touch before update on public.templates_draft
  for each row execute function public.touch_updated_at();
create trigger templates_pending_touch before update on public.templates_pending_approval
  for each row execute function public.touch_updated_at();
create trigger template_ratings_touch before update on public.template_ratings
  for each row execute function public.touch_updated_at();
create trigger orders_touch before update on public.orders
  for each row execute function public.touch_updated_at();

-- price_in_cents is always price times 100, rounded: derived here, so a write
-- that changes only the price (as the edit-template screen does) keeps the
-- two in step instead of failing their check constraint.
create function public.derive_price_in_cents() returns trigger
language plpgsql set search_path = ''
as $$
begin
  new.price_in_cents := round(new.price * 100)::int;
  return new;
end $$;

create trigger templates_price_in_cents before insert or update on public.templates
  for each row execute function public.derive_price_in_cents();
create trigger templates_draft_price_in_cents before insert or update on public.templates_draft
  for each row execute function public.derive_price_in_cents();
create trigger templates_pending_price_in_cents before insert or update on public.templates_pending_approval
  for each row execute function public.derive_price_in_cents();
create trigger templates_rejected_price_in_cents before insert or update on public.templates_rejected
  for each row execute function public.derive_price_in_cents();

-- ---------------------------------------------------------------------------
-- Profiles

-- A profile for every new auth user, from the sign-up metadata
-- (display_name, avatar_url; full_name or name from social providers).
create function public.handle_new_user() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  meta jsonb := coalesce(new.raw_user_meta_data, '{}'::jsonb);
begin
  insert into public.profiles (id, display_name, full_name, avatar_url, created_at)
  values (
    new.id,
    coalesce(nullif(meta ->> 'display_name', ''), nullif(meta ->> 'full_name', ''),
             nullif(meta ->> 'name', ''), nullif(meta ->> 'user_name', '')),
    coalesce(nullif(meta ->> 'full_name', ''), nullif(meta ->> 'name', '')),
    nullif(meta ->> 'avatar_url', ''),
    -- The account's creation time: the creators page lists profiles newest first.
    coalesce(new.created_at, now())
  )
  on conflict (id) do nothing;
  return new;
end $$;

create trigger on_auth_user_created after insert on auth.users
  for each row execute function public.handle_new_user();

-- Usernames are stored lowercase and, once set, never change.
create function public.profiles_username_rules() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if new.username is not null then
    new.username := lower(btrim(new.username));
  end if;
  if tg_op = 'UPDATE' and old.username is not null
     and new.username is distinct from old.username then
    raise exception 'Username cannot be changed once set'
      using errcode = 'P0001', hint = 'The username of a profile is set once.';
  end if;
  return new;
end $$;

create trigger profiles_username_rules before insert or update of username on public.profiles
  for each row execute function public.profiles_username_rules();

-- ---------------------------------------------------------------------------
-- Ratings: a template's average_rating and total_ratings follow its ratings.

create function public.refresh_template_rating() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  tid uuid := coalesce(new.template_id, old.template_id);
begin
  -- Lock the template first: concurrent ratings then recompute one after the
  -- other, each seeing the other's committed row (read committed takes a new
  -- snapshot per statement). `for no key update`, not `for update`: the
  -- rating's foreign key already holds a key-share lock on the template, and
  -- two raters each upgrading theirs to `for update` deadlock.
  perform 1 from public.templates where id = tid for no key update;
  update public.templates t
     set average_rating = coalesce(r.avg, 0), total_ratings = r.n
    from (select round(avg(rating)::numeric, 2) as avg, count(*)::int as n
            from public.template_ratings where template_id = tid) r
   where t.id = tid;
  return null;
end $$;

create trigger template_ratings_refresh after insert or update or delete on public.template_ratings
  for each row execute function public.refresh_template_rating();

-- Ratings are trimmed; an empty review is none.
create function public.template_ratings_clean() returns trigger
language plpgsql set search_path = ''
as $$
begin
  new.review_text := nullif(btrim(new.review_text), '');
  return new;
end $$;

create trigger template_ratings_clean before insert or update on public.template_ratings
  for each row execute function public.template_ratings_clean();

-- ---------------------------------------------------------------------------
-- Views (security_invoker: the caller's row-level security applies)

create view public.template_upvote_counts with (security_invoker = true) as
select u.template_id,
       count(*)::int as upvote_count,
       max(u.created_at) as latest_upvote_at,
       c.id as category_id,
       c.name as category_name,
       c.slug as category_slug
  from public.template_upvotes u
  join public.templates t on t.id = u.template_id and t.is_published
  left join public.categories c on c.id = t.category_id
 group by u.template_id, c.id, c.name, c.slug;

-- Per creator: published templates, downloads, upvotes received, rating (the
-- mean of their rated templates, one decimal), and weekly growth: upvotes
-- received in the last 7 days against the 7 days before, in percent (100 when
-- there were none before and some now).
create view public.creator_statistics with (security_invoker = true) as
with published as (
  select t.* from public.templates t where t.is_published
),
upvotes as (
  select p.user_id,
         count(*) as total,
         count(*) filter (where u.created_at >= now() - interval '7 days') as this_week,
         count(*) filter (where u.created_at >= now() - interval '14 days'
                            and u.created_at < now() - interval '7 days') as last_week
    from public.template_upvotes u
    join published p on p.id = u.template_id
   group by p.user_id
)
select pr.id,
       count(p.id)::int as templates_count,
       coalesce(sum(p.downloads_count), 0)::int as total_downloads,
       coalesce(max(u.total), 0)::int as total_upvotes,
       coalesce(round(avg(p.average_rating) filter (where p.average_rating > 0), 1), 0)::numeric as rating,
       (case
          when coalesce(max(u.last_week), 0) = 0 then
            case when coalesce(max(u.this_week), 0) > 0 then 100 else 0 end
          else round((max(u.this_week) - max(u.last_week)) * 100.0 / max(u.last_week), 1)
        end)::numeric as weekly_growth_percentage,
       coalesce(array_agg(distinct c.name) filter (where c.name is not null), '{}') as categories
  from public.profiles pr
  left join published p on p.user_id = pr.id
  left join public.categories c on c.id = p.category_id
  left join upvotes u on u.user_id = pr.id
 group by pr.id;

-- ---------------------------------------------------------------------------
-- Follows

create function public.get_follower_count(user_id uuid) returns integer
language sql stable set search_path = ''
as $$ select count(*)::int from public.followers f where f.following_id = get_follower_count.user_id $$;

create function public.is_following(follower uuid, following uuid) returns boolean
language sql stable set search_path = ''
as $$
  select exists (select 1 from public.followers f
                  where f.follower_id = is_following.follower
                    and f.following_id = is_following.following)
$$;

-- The people who follow `user_id`, newest first.
create function public.get_user_followers(user_id uuid)
returns table (id uuid, username text, display_name text, avatar_url text, followed_at timestamptz)
language sql stable set search_path = ''
as $$
  select p.id, p.username, p.display_name, p.avatar_url, f.created_at
    from public.followers f join public.profiles p on p.id = f.follower_id
   where f.following_id = get_user_followers.user_id
   order by f.created_at desc
$$;

-- The people `user_id` follows, newest first.
create function public.get_user_following(user_id uuid)
returns table (id uuid, username text, display_name text, avatar_url text, followed_at timestamptz)
language sql stable set search_path = ''
as $$
  select p.id, p.username, p.display_name, p.avatar_url, f.created_at
    from public.followers f join public.profiles p on p.id = f.following_id
   where f.follower_id = get_user_following.user_id
   order by f.created_at desc
$$;

-- ---------------------------------------------------------------------------
-- Creators

-- The creators with a published template, ranked by weekly growth, then
-- downloads, then number of templates.
create function public.get_trending_creators(limit_count integer default 4)
returns table (
  id uuid, rank integer, weekly_growth_percentage numeric, username text, display_name text,
  avatar_url text, bio text, rating numeric, categories text[], templates_count integer,
  total_downloads integer
)
language sql stable set search_path = ''
as $$
  select s.id,
         (row_number() over (order by s.weekly_growth_percentage desc, s.total_downloads desc,
                                      s.templates_count desc, p.created_at))::int,
         s.weekly_growth_percentage, p.username, p.display_name, p.avatar_url, p.bio,
         s.rating, s.categories, s.templates_count, s.total_downloads
    from public.creator_statistics s join public.profiles p on p.id = s.id
   where s.templates_count > 0
   order by 2
   limit greatest(least(coalesce(limit_count, 4), 100), 0)
$$;

-- ---------------------------------------------------------------------------
-- The template lifecycle: draft -> pending -> published or rejected.

-- Submits a template for review: inserts the pending row and, in the same
-- transaction, removes the draft it came from and the rejected record it
-- resubmits. `template` carries the template's fields (as the upload form
-- has them); the creator is always the caller.
create function public.submit_template(
  template jsonb,
  draft_id uuid default null,
  rejected_id uuid default null
) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  original uuid;
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

-- Approves a pending template: copies it into `templates` as published
-- (replacing the published template it edits, whose id, counters and ratings
-- are kept) and removes the pending row, in one transaction. Admins only.
create function public.admin_approve_template(pending_template_id uuid) returns uuid
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
  delete from public.templates_pending_approval where id = p.id;
  return published_id;
end $$;

-- Rejects a pending template: records the reason and date, moves it to the
-- rejected store and removes the pending row, in one transaction. Admins only.
create function public.admin_reject_template(pending_template_id uuid, reason text) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  p public.templates_pending_approval;
begin
  if not public.is_admin(auth.uid()) then
    raise exception 'Only admins may reject templates' using errcode = '42501';
  end if;
  if nullif(btrim(reason), '') is null then
    raise exception 'A rejection reason is required' using errcode = '22023';
  end if;
  update public.templates_pending_approval
     set status = 'Rejected', rejection_comment = btrim(reason), rejection_date = now()
   where id = pending_template_id
  returning * into p;
  if not found then
    raise exception 'Pending template not found' using errcode = 'PT404';
  end if;
  insert into public.templates_rejected (
    id, creator_id, title, description, about_template, price, price_in_cents, category_id, tags,
    preview_image_url, preview_images, template_file_url, template_url, features_included,
    requirements, rejection_comment, rejection_date, original_template_id, created_at)
  values (
    p.id, p.creator_id, p.title, p.description, p.about_template, p.price, p.price_in_cents,
    p.category_id, p.tags, p.preview_image_url, p.preview_images, p.template_file_url,
    p.template_url, p.features_included, p.requirements, p.rejection_comment, p.rejection_date,
    p.original_template_id, p.created_at);
  delete from public.templates_pending_approval where id = p.id;
  return p.id;
end $$;

-- Turns the caller's rejected template back into a draft under the same id.
create function public.save_rejected_as_draft(rejected_id uuid) returns uuid
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
    requirements, last_edited_at)
  values (
    r.id, r.creator_id, left(r.title, 30), r.description, r.about_template, r.price,
    r.price_in_cents, r.category_id, r.tags, r.preview_image_url, r.preview_images,
    r.template_file_url, r.template_url, r.features_included, r.requirements, now());
  return r.id;
end $$;

-- Deletes one of the caller's unpublished templates ('draft', 'pending' or
-- 'rejected'; an admin may delete any pending one) and returns the paths of
-- its files in the 'templates' bucket, for the caller to remove there.
create function public.delete_unpublished_template(kind text, template_id uuid)
returns text[]
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  files text[];
begin
  if uid is null then
    raise exception 'Sign in to delete a template' using errcode = '42501';
  end if;
  if kind = 'draft' then
    delete from public.templates_draft where id = template_id and creator_id = uid
    returning array_remove(array[preview_image_url, template_file_url] || preview_images, null) into files;
  elsif kind = 'pending' then
    delete from public.templates_pending_approval
     where id = template_id and (creator_id = uid or public.is_admin(uid))
    returning array_remove(array[preview_image_url, template_file_url] || preview_images, null) into files;
  elsif kind = 'rejected' then
    delete from public.templates_rejected where id = template_id and creator_id = uid
    returning array_remove(array[preview_image_url, template_file_url] || preview_images, null) into files;
  else
    raise exception 'kind must be draft, pending or rejected' using errcode = '22023';
  end if;
  if files is null then
    raise exception 'Template not found' using errcode = 'PT404';
  end if;
  return files;
end $$;

-- Only signed-in callers reach the lifecycle functions; the admin ones check
-- the admins table themselves.
revoke execute on function public.submit_template(jsonb, uuid, uuid),
  public.admin_approve_template(uuid), public.admin_reject_template(uuid, text),
  public.save_rejected_as_draft(uuid), public.delete_unpublished_template(text, uuid)
  from public, anon;
revoke execute on function public.handle_new_user(), public.refresh_template_rating()
  from public, anon, authenticated;
