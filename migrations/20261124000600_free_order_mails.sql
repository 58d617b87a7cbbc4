-- Free downloads are counted once per e-mail address and template, and
-- their links are e-mailed sparingly (crates/functions, create-free-order):
-- asking again for the same template with the same address (in any letter
-- case) reuses the order instead of counting another download, and the link
-- goes to one address at most once per template per window and a few times
-- per window across templates. This column says when an order's link was
-- last e-mailed (null: never, as for orders made before it existed); the
-- indexes serve both look-ups.
alter table public.orders add column download_mail_sent_at timestamptz;

comment on column public.orders.download_mail_sent_at is
  'When the download link of this (free) order was last e-mailed to buyer_email.';

create index orders_free_by_email on public.orders (product_id, lower(buyer_email))
  where payment_status = 'free';
create index orders_mailed_by_email on public.orders (lower(buyer_email), download_mail_sent_at)
  where download_mail_sent_at is not null;
