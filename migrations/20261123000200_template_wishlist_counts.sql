-- How many people keep each of the caller's templates in their wishlist (the
-- dashboard's Favorited statistic).
--
-- A wishlist is private to its user (policies/0009_wishlist.sql), so a
-- creator cannot count the wishlist rows of their templates directly, and a
-- policy letting them read those rows would tell them who saved what. This
-- function answers with counts only, and only for templates the caller owns:
-- ids of other people's templates are left out of the answer.
create function public.get_template_wishlist_counts(template_ids uuid[])
returns table (template_id uuid, wishlist_count integer)
language sql stable security definer set search_path = ''
as $$
  select t.id, count(w.user_id)::int
    from public.templates t
    left join public.wishlist w on w.template_id = t.id
   where t.id = any (template_ids)
     and t.user_id = auth.uid()
   group by t.id
$$;

revoke execute on function public.get_template_wishlist_counts(uuid[]) from public, anon;
grant execute on function public.get_template_wishlist_counts(uuid[]) to authenticated;
