-- The links of paid templates (migrations/20261123000500_paid_template_links.sql):
-- their creator and admins read them; nobody writes them through the API
-- (the trigger on templates does, and the functions read them with the
-- service role for paid orders).
create policy "creators and admins read paid template links" on public.paid_template_links
  for select to authenticated
  using (
    public.is_admin()
    or exists (select 1 from public.templates t where t.id = template_id and t.user_id = auth.uid())
  );
