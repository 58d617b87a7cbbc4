-- Versions of published templates (migrations/20261128000200_template_versions.sql):
-- read by whoever can read the template (row-level security of templates
-- decides: published ones by everyone, others by their creator and admins);
-- written only by add_template_version, which checks the caller is the
-- template's creator (no insert, update or delete policy; the grants are
-- revoked too).
create policy "versions are read with their template" on public.template_versions
  for select to anon, authenticated
  using (exists (select 1 from public.templates t where t.id = template_versions.template_id));
