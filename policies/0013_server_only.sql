-- Newsletter subscribers and view events: row-level security is on and no
-- policy admits the API's client roles; the server's functions write them
-- with the service role.
comment on table public.newsletter_subscribers is 'Written by the subscribe-to-newsletter function only.';
comment on table public.template_views is 'Written by the track-template-view function only.';
