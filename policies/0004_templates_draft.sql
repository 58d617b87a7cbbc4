-- Drafts are their creator's alone.
create policy "creators read their drafts" on public.templates_draft
  for select to authenticated using (creator_id = auth.uid());
create policy "creators create their drafts" on public.templates_draft
  for insert to authenticated with check (creator_id = auth.uid());
create policy "creators edit their drafts" on public.templates_draft
  for update to authenticated using (creator_id = auth.uid()) with check (creator_id = auth.uid());
create policy "creators delete their drafts" on public.templates_draft
  for delete to authenticated using (creator_id = auth.uid());
