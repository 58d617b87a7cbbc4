-- What a template page shows of its ratings (issue 44, item 7): the written
-- reviews with their reviewers' public names, and how many ratings each star
-- has (a rating without words is counted there, not listed as a review).
--
-- Both are views with security_invoker: the caller's row-level security
-- decides (ratings and profiles are public, policies/0010 and 0001; only
-- published templates' rows show). A review exposes its rating, text and
-- dates and the reviewer's public profile fields (id, username, display
-- name, avatar), never an e-mail or anything else of the account.

create view public.template_reviews with (security_invoker = true) as
select r.id,
       r.template_id,
       r.rating,
       r.review_text,
       r.created_at,
       r.updated_at,
       p.id as reviewer_id,
       p.username as reviewer_username,
       p.display_name as reviewer_display_name,
       p.avatar_url as reviewer_avatar_url
  from public.template_ratings r
  join public.templates t on t.id = r.template_id and t.is_published
  join public.profiles p on p.id = r.user_id
 where r.review_text is not null;

-- One row per template and star that has ratings; the counts add up to the
-- template's total_ratings (both count public.template_ratings).
create view public.template_rating_counts with (security_invoker = true) as
select r.template_id,
       r.rating,
       count(*)::int as ratings
  from public.template_ratings r
  join public.templates t on t.id = r.template_id and t.is_published
 group by r.template_id, r.rating;

-- Read-only for the API roles (the default privileges grant everything).
revoke all on public.template_reviews, public.template_rating_counts from anon, authenticated;
grant select on public.template_reviews, public.template_rating_counts to anon, authenticated;

-- The reviews of a template newest first, as the page reads them.
create index if not exists template_ratings_newest on public.template_ratings (template_id, created_at desc);
