-- Private realtime channels (realtime.messages, the platform's realtime
-- authorization): joining a private channel needs a select policy that shows
-- the joining user a row of its topic; broadcasting on one from a client
-- needs an insert policy.
--
-- `creator:{user id}` is a creator's own channel, on which the database
-- announces the review of their submissions
-- (migrations/20261125000100_template_review_notifications.sql): a signed-in
-- user may receive the broadcasts of their own channel and of no other.
-- There is no insert policy: no client sends on any private channel, and no
-- presence on it; only the database's triggers (security definer) write
-- messages.
create policy "creators receive their own channel's broadcasts" on realtime.messages
  for select to authenticated
  using (extension = 'broadcast' and topic = 'creator:' || auth.uid()::text);
