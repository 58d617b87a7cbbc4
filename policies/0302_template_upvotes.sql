-- Upvotes (policies/0008_template_upvotes.sql): a user upvotes published
-- templates as themself, and never their own
-- (migrations/20261124000400_no_votes_on_own_templates.sql).
drop policy "users upvote as themselves" on public.template_upvotes;
create policy "users upvote as themselves" on public.template_upvotes
  for insert to authenticated
  with check (user_id = auth.uid()
              and exists (select 1 from public.templates t
                           where t.id = template_id and t.is_published and t.user_id <> auth.uid()));
