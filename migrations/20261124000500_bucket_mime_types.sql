-- The marketplace's buckets take only the file types the spec needs
-- (buckets: 20261122000100_storage_buckets.sql, 20261122000200_paid_template_files.sql).
--
-- Files are served on the app's origin, so a bucket that takes any type lets
-- a user store a page (text/html) or a picture that runs script
-- (image/svg+xml) and send people to it. Storage serves every file
-- sandboxed, with `nosniff`, and active types as attachments; the buckets
-- refuse those types in the first place.
--
--   avatars         a profile picture: raster images only (no SVG), 5 MB
--   templates       preview images (raster) and the files of free templates
--   template-files  the files of paid templates
--
-- A template file is whatever a creator ships for the workspace app: an
-- archive, a document, a spreadsheet, text, an image; a type the browser
-- does not know arrives as application/octet-stream. Never HTML, SVG, XML or
-- script. Storage matches `type/*` wildcards and ignores parameters
-- (`; charset=...`) and case.

update storage.buckets
   set allowed_mime_types = array['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'],
       updated_at = now()
 where id = 'avatars';

update storage.buckets
   set allowed_mime_types = array[
         -- preview images, and pictures shipped as a template's file
         'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif',
         -- archives
         'application/zip', 'application/x-zip-compressed', 'application/gzip',
         'application/x-tar', 'application/x-7z-compressed', 'application/vnd.rar',
         -- documents, text and data
         'application/pdf', 'application/json', 'text/plain', 'text/markdown', 'text/csv',
         'application/msword',
         'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
         'application/vnd.ms-excel',
         'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
         'application/vnd.ms-powerpoint',
         'application/vnd.openxmlformats-officedocument.presentationml.presentation',
         'application/vnd.oasis.opendocument.text',
         'application/vnd.oasis.opendocument.spreadsheet',
         'application/vnd.oasis.opendocument.presentation',
         -- what a browser sends for a file type it does not know
         'application/octet-stream'
       ],
       updated_at = now()
 where id in ('templates', 'template-files');
