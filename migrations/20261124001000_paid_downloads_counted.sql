-- Paid sales count as downloads, as free ones do (crates/functions,
-- validate-download): a paid order's first download adds one to its
-- template's downloads_count, once per order however often it is opened.
-- Free orders are counted when they are made (create-free-order, once per
-- e-mail address and template) and keep this column null. This column says
-- when a paid order's download was counted (null: not yet, as for paid
-- orders made before it existed, which count at their next download).
alter table public.orders add column download_counted_at timestamptz;

comment on column public.orders.download_counted_at is
  'When the first download of this paid order was counted in its template''s downloads_count.';
