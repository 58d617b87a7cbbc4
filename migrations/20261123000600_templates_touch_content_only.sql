-- A template's updated_at says when its content last changed. Counting a
-- view or a download, or a new rating, rewrote the counters and bumped it
-- too, so "recently updated" meant "recently viewed". The trigger now fires
-- only for writes of the template's own content.
drop trigger templates_touch on public.templates;
create trigger templates_touch
  before update of title, description, about_template, price, price_in_cents, category_id, tags,
                   preview_image_url, preview_images, template_file_url, template_url,
                   features_included, requirements, status, is_published, author
  on public.templates
  for each row execute function public.touch_updated_at();
