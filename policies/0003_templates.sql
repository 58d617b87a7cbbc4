-- Published templates are public. Their owner may edit the content columns
-- (granted in the marketplace migration); publication, counters and ratings
-- change only through the approval function and triggers.
create policy "anyone reads published templates" on public.templates
  for select to anon, authenticated
  using (is_published or user_id = auth.uid() or public.is_admin());
create policy "owners edit their templates" on public.templates
  for update to authenticated using (user_id = auth.uid()) with check (user_id = auth.uid());
