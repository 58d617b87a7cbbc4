-- Upvotes are public (they make the counts); a user adds and removes their own.
create policy "anyone reads upvotes" on public.template_upvotes
  for select to anon, authenticated using (true);
create policy "users upvote as themselves" on public.template_upvotes
  for insert to authenticated
  with check (user_id = auth.uid()
              and exists (select 1 from public.templates t where t.id = template_id and t.is_published));
create policy "users remove their upvotes" on public.template_upvotes
  for delete to authenticated using (user_id = auth.uid());
