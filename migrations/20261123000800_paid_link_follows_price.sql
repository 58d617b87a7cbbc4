-- The trigger that keeps a paid template's link private
-- (20261123000500_paid_template_links.sql) read price_in_cents, which another
-- BEFORE trigger (templates_price_in_cents) derives from price, and which runs
-- after it (triggers fire in name order). An edit that changed only the price,
-- as the edit screen sends it, was judged by the old price: a template made
-- paid kept its link public, one made free kept it hidden. It now reads the
-- price itself, as price_in_cents will be derived from it.
create or replace function public.templates_keep_paid_link_private() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if round(new.price * 100) > 0 then
    if new.template_url is not null then
      insert into public.paid_template_links as l (template_id, template_url)
      values (new.id, new.template_url)
      on conflict (template_id) do update set template_url = excluded.template_url, updated_at = now();
      new.template_url := null;
    end if;
  elsif tg_op = 'UPDATE' and new.template_url is null then
    -- Free now: its link is public again, as every free template's is.
    delete from public.paid_template_links where template_id = new.id
    returning template_url into new.template_url;
  end if;
  return new;
end $$;
revoke execute on function public.templates_keep_paid_link_private() from public, anon, authenticated;
