-- Ratings and reviews are public; a user rates (and re-rates) as themself,
-- published templates only.
create policy "anyone reads ratings" on public.template_ratings
  for select to anon, authenticated using (true);
create policy "users rate as themselves" on public.template_ratings
  for insert to authenticated
  with check (user_id = auth.uid()
              and exists (select 1 from public.templates t where t.id = template_id and t.is_published));
create policy "users change their ratings" on public.template_ratings
  for update to authenticated using (user_id = auth.uid()) with check (user_id = auth.uid());
create policy "users delete their ratings" on public.template_ratings
  for delete to authenticated using (user_id = auth.uid());
