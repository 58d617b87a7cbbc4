create policy "anyone reads categories" on public.categories
  for select to anon, authenticated using (true);
