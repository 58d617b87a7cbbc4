-- Paid template files and receipts.
--
--   template-files  a PRIVATE bucket for the files of paid templates, at
--                   {user id}/files/{timestamp}-{random}.{ext}. No public
--                   URL serves it; its creator (and admins, for review) may
--                   read it; buyers get signed, expiring URLs from the
--                   validate-download function once their order is paid.
--                   Policies: policies/0110_storage_template_files.sql.
--
-- templates.template_file_url of a paid template names its object as
-- 'template-files/{path}' (or any storage URL of it); the functions sign it.

insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('template-files', 'template-files', false, null, null)
on conflict (id) do nothing;

-- The receipt e-mail (paid-download-confirmation) carries a download link of
-- its own: its token's SHA-256 is kept beside the checkout's, and the receipt
-- is sent once per order.
alter table public.orders
  add column receipt_token_hash text,
  add column receipt_sent_at timestamptz;
