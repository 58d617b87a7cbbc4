-- The workspace-app link of a PAID template is what its buyers pay for, so it
-- must not be readable by everyone who can read the template. It is kept in
-- `paid_template_links` instead of `templates.template_url`, which stays null
-- for paid templates: a trigger moves the link there whenever a paid template
-- is written with one (by approval, by an edit, by a seed), and moves it back
-- if the template becomes free. The functions read it with the service role
-- when a buyer's order is paid; its creator and admins may read it too
-- (policies/0205_paid_template_links.sql).

create table public.paid_template_links (
  -- Deferred: the trigger below stores the link while its template row is
  -- still being inserted.
  template_id uuid primary key references public.templates (id) on delete cascade deferrable initially deferred,
  template_url text not null,
  updated_at timestamptz not null default now()
);
alter table public.paid_template_links enable row level security;
revoke all on public.paid_template_links from anon;
revoke insert, update, delete, truncate on public.paid_template_links from authenticated;

create function public.templates_keep_paid_link_private() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if new.price_in_cents > 0 then
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

create trigger templates_keep_paid_link_private
  before insert or update of template_url, price, price_in_cents on public.templates
  for each row execute function public.templates_keep_paid_link_private();

-- Paid templates published before this file: move their links now.
insert into public.paid_template_links (template_id, template_url)
select id, template_url from public.templates where price_in_cents > 0 and template_url is not null;
update public.templates set template_url = null where price_in_cents > 0 and template_url is not null;
