-- Ratings (policies/0010_template_ratings.sql): a user rates and re-rates
-- published templates as themself, and never their own
-- (migrations/20261124000400_no_votes_on_own_templates.sql). A rating of
-- their own template (from before this rule) may still be deleted.
drop policy "users rate as themselves" on public.template_ratings;
create policy "users rate as themselves" on public.template_ratings
  for insert to authenticated
  with check (user_id = auth.uid()
              and exists (select 1 from public.templates t
                           where t.id = template_id and t.is_published and t.user_id <> auth.uid()));
drop policy "users change their ratings" on public.template_ratings;
create policy "users change their ratings" on public.template_ratings
  for update to authenticated
  using (user_id = auth.uid())
  with check (user_id = auth.uid()
              and exists (select 1 from public.templates t
                           where t.id = template_id and t.user_id <> auth.uid()));
