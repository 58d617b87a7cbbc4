-- A creator submits and withdraws their own pending templates; admins read
-- them all and decide (approval and rejection also exist as functions that
-- do every step in one transaction).
create policy "creators and admins read pending templates" on public.templates_pending_approval
  for select to authenticated using (creator_id = auth.uid() or public.is_admin());
create policy "creators submit templates" on public.templates_pending_approval
  for insert to authenticated
  with check (creator_id = auth.uid() and status = 'Pending Approval'
              and rejection_comment is null and rejection_date is null);
create policy "admins review pending templates" on public.templates_pending_approval
  for update to authenticated using (public.is_admin()) with check (public.is_admin());
create policy "creators and admins delete pending templates" on public.templates_pending_approval
  for delete to authenticated using (creator_id = auth.uid() or public.is_admin());
