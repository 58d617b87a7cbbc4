/** The template fields every list reads (the templates feature's reads, the wishlist). */
export const TEMPLATE_LIST_COLUMNS =
  'id, user_id, title, description, preview_image_url, preview_images, template_file_url, price, price_in_cents, ' +
  'downloads_count, total_views, average_rating, total_ratings, created_at, updated_at, tags, features_included, ' +
  'requirements, category_id, user_id, is_published, status, author, about_template, template_url'
