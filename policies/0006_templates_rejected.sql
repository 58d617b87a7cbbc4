-- A creator sees and clears their own rejections; admins file them.
create policy "creators and admins read rejected templates" on public.templates_rejected
  for select to authenticated using (creator_id = auth.uid() or public.is_admin());
create policy "admins file rejections" on public.templates_rejected
  for insert to authenticated with check (public.is_admin());
create policy "creators delete their rejected templates" on public.templates_rejected
  for delete to authenticated using (creator_id = auth.uid());
