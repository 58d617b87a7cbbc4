-- A template's link (`template_url`, the workspace-app template a download
-- opens) is a web link, and nothing else.
--
-- The app sends the browser to the link create-free-order answers with, so a
-- `javascript:` or `data:` link ran as script in the app's origin. Every
-- table holding a template_url now takes only:
--
--   * an absolute http(s) URL with a host: 'https://...' ('http://' too: the
--     database cannot tell a development server from another; the functions
--     hand out http links only while the site itself is http), or
--   * a path of the site itself, '/...' (not '//host' nor '/\host', which
--     browsers read as another host), such as the demo data's files;
--
-- with no whitespace, control character or backslash anywhere. The
-- functions apply the same rule again (`files::web_link`) and the app checks
-- a link before it navigates (app/src/lib/safe-link.ts).

create function public.is_web_link(link text) returns boolean
language sql immutable parallel safe set search_path = ''
as $$
  select link !~ '[[:space:][:cntrl:]\\]'
     and (link ~* '^https?://[^/]' or link ~ '^/[^/]')
$$;

comment on function public.is_web_link(text) is
  'Whether a template link is an http(s) URL with a host or a path of the site: never javascript:, data: or another scheme.';

-- Links written before this file that are not web links are dropped.
update public.templates_draft set template_url = null
 where template_url is not null and not public.is_web_link(template_url);
update public.templates_pending_approval set template_url = null
 where template_url is not null and not public.is_web_link(template_url);
update public.templates_rejected set template_url = null
 where template_url is not null and not public.is_web_link(template_url);
update public.templates set template_url = null
 where template_url is not null and not public.is_web_link(template_url);
update public.paid_template_links set template_url = null
 where template_url is not null and not public.is_web_link(template_url);
delete from public.paid_template_links where template_url is null and template_file_url is null;

alter table public.templates
  add constraint templates_template_url_is_web_link
  check (template_url is null or public.is_web_link(template_url));
alter table public.templates_draft
  add constraint templates_draft_template_url_is_web_link
  check (template_url is null or public.is_web_link(template_url));
alter table public.templates_pending_approval
  add constraint templates_pending_template_url_is_web_link
  check (template_url is null or public.is_web_link(template_url));
alter table public.templates_rejected
  add constraint templates_rejected_template_url_is_web_link
  check (template_url is null or public.is_web_link(template_url));
alter table public.paid_template_links
  add constraint paid_template_links_template_url_is_web_link
  check (template_url is null or public.is_web_link(template_url));
