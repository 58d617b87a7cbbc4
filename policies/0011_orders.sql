-- A buyer reads their own orders; orders are written by the server's
-- functions only (service role).
create policy "buyers read their orders" on public.orders
  for select to authenticated using (buyer_id = auth.uid());
