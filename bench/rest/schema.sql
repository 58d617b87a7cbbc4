-- The REST benchmark's data: owners, items (each with an owner) and tags
-- (three per item), behind row-level security like every real table.
create table public.bench_owners (id int primary key, name text not null, email text not null);
create table public.bench_items (
  id int primary key,
  owner_id int not null references public.bench_owners (id),
  title text not null,
  price numeric(8,2) not null,
  created_at timestamptz not null default now()
);
create index on public.bench_items (owner_id);
create table public.bench_tags (
  id int primary key,
  item_id int not null references public.bench_items (id),
  label text not null
);
create index on public.bench_tags (item_id);
alter table public.bench_owners enable row level security;
alter table public.bench_items enable row level security;
alter table public.bench_tags enable row level security;
create policy "anyone reads" on public.bench_owners for select using (true);
create policy "anyone reads" on public.bench_items for select using (true);
create policy "anyone reads" on public.bench_tags for select using (true);
create function public.bench_owner_total(owner int) returns numeric
language sql stable as $$ select coalesce(sum(price), 0) from public.bench_items where owner_id = owner $$;
insert into public.bench_owners select g, 'owner ' || g, 'owner' || g || '@example.com' from generate_series(1, 1000) g;
insert into public.bench_items select g, 1 + g % 1000, 'item ' || g, (g % 100) + 0.99, now() - (g || ' minutes')::interval
  from generate_series(1, 10000) g;
insert into public.bench_tags select g, 1 + (g - 1) / 3, 'tag ' || (g % 17) from generate_series(1, 30000) g;
analyze;
notify pgrst, 'reload schema';
