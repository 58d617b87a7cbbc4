-- Who may do what with the private bucket of paid template files
-- (bucket: migrations/20261122000200_paid_template_files.sql).
--
-- A creator adds, reads, replaces and deletes files only under a first
-- folder named after their own user id; admins read every file (review).
-- Nobody else reads, lists or signs them: buyers get signed URLs minted by
-- the validate-download function after payment (service role).

create policy "template files: creators and admins read"
  on storage.objects for select
  to authenticated
  using (
    bucket_id = 'template-files'
    and ((storage.foldername(name))[1] = auth.uid()::text or public.is_admin())
  );

create policy "template files: creators add files to their own folder"
  on storage.objects for insert
  to authenticated
  with check (
    bucket_id = 'template-files'
    and (storage.foldername(name))[1] = auth.uid()::text
  );

create policy "template files: creators replace files in their own folder"
  on storage.objects for update
  to authenticated
  using (
    bucket_id = 'template-files'
    and (storage.foldername(name))[1] = auth.uid()::text
  )
  with check (
    bucket_id = 'template-files'
    and (storage.foldername(name))[1] = auth.uid()::text
  );

create policy "template files: creators delete files in their own folder"
  on storage.objects for delete
  to authenticated
  using (
    bucket_id = 'template-files'
    and (storage.foldername(name))[1] = auth.uid()::text
  );
