-- The marketplace's tables. Row-level security is enabled on every one of
-- them here; who may do what is in policies/. Column grants below narrow what
-- the API roles may write where a whole-row policy would be too coarse
-- (counters and publication state are never written by clients).

-- Profiles: one per auth user, made by a trigger from the sign-up metadata.
create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  -- Lowercase letters, digits, underscore and hyphen, 3 to 30 characters;
  -- unique; settable once (see profiles_username_is_set_once below).
  username text unique
    constraint profiles_username_format check (username ~ '^[a-z0-9_-]{3,30}$'),
  display_name text,
  full_name text,
  -- A full http(s) URL, or a path in the public bucket 'avatars'.
  avatar_url text,
  bio text,
  -- Keys twitter, instagram, website, github.
  social_links jsonb not null default '{}'::jsonb
    constraint profiles_social_links_object check (jsonb_typeof(social_links) = 'object'),
  -- The creator's connected payment account; written by the server only.
  stripe_account_id text,
  -- Set by the server when the payment account needs attention.
  stripe_account_issue boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table public.categories (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  slug text not null unique constraint categories_slug_format check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  description text,
  created_at timestamptz not null default now()
);

-- True when every tag is trimmed and non-empty and no tag repeats.
create function public.tags_are_clean(tags text[]) returns boolean
language sql immutable parallel safe
as $$
  select coalesce(bool_and(t = btrim(t) and t <> ''), true)
     and count(*) = count(distinct t)
  from unnest(tags) as t
$$;

-- The fields every kind of template shares are repeated per table (rather
-- than inherited) so that each table has its own keys and constraints.

-- Published templates.
create table public.templates (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  title text not null constraint templates_title_length check (char_length(title) between 3 and 30),
  description text,
  about_template text,
  price numeric(10, 2) not null default 0 constraint templates_price_not_negative check (price >= 0),
  price_in_cents integer not null default 0
    constraint templates_price_in_cents_matches check (price_in_cents = round(price * 100)),
  category_id uuid references public.categories (id) on delete set null,
  tags text[] not null default '{}' constraint templates_tags_clean check (public.tags_are_clean(tags)),
  preview_image_url text,
  preview_images text[] not null default '{}'
    constraint templates_at_most_6_previews check (cardinality(preview_images) <= 6),
  template_file_url text,
  template_url text,
  features_included text[] not null default '{}',
  requirements text[] not null default '{}',
  status text not null default 'published',
  is_published boolean not null default true,
  average_rating numeric(3, 2) not null default 0,
  total_ratings integer not null default 0,
  downloads_count integer not null default 0,
  total_views integer not null default 0,
  author text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index templates_published_created on public.templates (created_at desc) where is_published;
create index templates_category on public.templates (category_id) where is_published;
create index templates_user on public.templates (user_id);

create table public.templates_draft (
  id uuid primary key default gen_random_uuid(),
  creator_id uuid not null references public.profiles (id) on delete cascade,
  -- Drafts may be incomplete: nothing is required but the owner.
  title text constraint templates_draft_title_length check (char_length(title) <= 30),
  description text,
  about_template text,
  price numeric(10, 2) not null default 0 constraint templates_draft_price_not_negative check (price >= 0),
  price_in_cents integer not null default 0
    constraint templates_draft_price_in_cents_matches check (price_in_cents = round(price * 100)),
  category_id uuid references public.categories (id) on delete set null,
  tags text[] not null default '{}' constraint templates_draft_tags_clean check (public.tags_are_clean(tags)),
  preview_image_url text,
  preview_images text[] not null default '{}'
    constraint templates_draft_at_most_6_previews check (cardinality(preview_images) <= 6),
  template_file_url text,
  template_url text,
  features_included text[] not null default '{}',
  requirements text[] not null default '{}',
  last_edited_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index templates_draft_creator on public.templates_draft (creator_id, last_edited_at desc);

create table public.templates_pending_approval (
  id uuid primary key default gen_random_uuid(),
  creator_id uuid not null references public.profiles (id) on delete cascade,
  title text not null constraint templates_pending_title_length check (char_length(title) between 3 and 30),
  description text not null,
  about_template text,
  price numeric(10, 2) not null default 0 constraint templates_pending_price_not_negative check (price >= 0),
  price_in_cents integer not null default 0
    constraint templates_pending_price_in_cents_matches check (price_in_cents = round(price * 100)),
  category_id uuid not null references public.categories (id),
  tags text[] not null default '{}' constraint templates_pending_tags_clean check (public.tags_are_clean(tags)),
  preview_image_url text,
  preview_images text[] not null default '{}'
    constraint templates_pending_at_most_6_previews check (cardinality(preview_images) <= 6),
  template_file_url text,
  template_url text,
  features_included text[] not null default '{}',
  requirements text[] not null default '{}',
  status text not null default 'Pending Approval'
    constraint templates_pending_status check (status in ('Pending Approval', 'Active', 'Rejected')),
  rejection_comment text,
  rejection_date timestamptz,
  -- Set when this submission edits a template that was published before:
  -- approval then replaces that template, keeping its id and counters.
  original_template_id uuid references public.templates (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index templates_pending_status_created on public.templates_pending_approval (status, created_at desc);
create index templates_pending_creator on public.templates_pending_approval (creator_id);

create table public.templates_rejected (
  id uuid primary key default gen_random_uuid(),
  creator_id uuid not null references public.profiles (id) on delete cascade,
  title text not null,
  description text,
  about_template text,
  price numeric(10, 2) not null default 0 constraint templates_rejected_price_not_negative check (price >= 0),
  price_in_cents integer not null default 0
    constraint templates_rejected_price_in_cents_matches check (price_in_cents = round(price * 100)),
  category_id uuid references public.categories (id) on delete set null,
  tags text[] not null default '{}',
  preview_image_url text,
  preview_images text[] not null default '{}',
  template_file_url text,
  template_url text,
  features_included text[] not null default '{}',
  requirements text[] not null default '{}',
  rejection_comment text not null,
  rejection_date timestamptz not null default now(),
  original_template_id uuid references public.templates (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index templates_rejected_creator on public.templates_rejected (creator_id, rejection_date desc);

create table public.followers (
  follower_id uuid not null references public.profiles (id) on delete cascade,
  following_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (follower_id, following_id),
  constraint followers_not_self check (follower_id <> following_id)
);
create index followers_following on public.followers (following_id);

create table public.template_upvotes (
  template_id uuid not null references public.templates (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (template_id, user_id)
);
create index template_upvotes_user on public.template_upvotes (user_id);

create table public.wishlist (
  template_id uuid not null references public.templates (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (template_id, user_id)
);
create index wishlist_user on public.wishlist (user_id, created_at desc);

create table public.template_ratings (
  id uuid primary key default gen_random_uuid(),
  template_id uuid not null references public.templates (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  rating smallint not null constraint template_ratings_1_to_5 check (rating between 1 and 5),
  review_text text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint template_ratings_one_per_user unique (template_id, user_id)
);

-- Orders: free downloads and paid purchases, by signed-in buyers or guests.
create table public.orders (
  id uuid primary key default gen_random_uuid(),
  product_id uuid not null references public.templates (id) on delete restrict,
  buyer_id uuid references auth.users (id) on delete set null,
  buyer_email text not null constraint orders_buyer_email_format check (buyer_email ~ '^[^@\s]+@[^@\s]+$'),
  -- What was charged, from the template's price at the time of the order.
  price_in_cents integer not null default 0 constraint orders_price_not_negative check (price_in_cents >= 0),
  currency text not null default 'usd',
  -- free: nothing to pay; pending: awaiting the payment; paid; failed.
  payment_status text not null default 'pending'
    constraint orders_payment_status check (payment_status in ('free', 'pending', 'paid', 'failed')),
  payment_intent_id text unique,
  -- SHA-256 of the download token handed to the buyer; the token itself is
  -- never stored.
  download_token_hash text,
  download_url text,
  paid_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index orders_buyer on public.orders (buyer_id);
create index orders_product on public.orders (product_id);

create table public.admins (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references auth.users (id) on delete cascade,
  created_at timestamptz not null default now()
);

create table public.newsletter_subscribers (
  id uuid primary key default gen_random_uuid(),
  email text not null constraint newsletter_email_format check (email ~ '^[^@\s]+@[^@\s]+$'),
  name text,
  created_at timestamptz not null default now()
);
create unique index newsletter_subscribers_email on public.newsletter_subscribers (lower(email));

-- One row per counted view; a visitor counts once per template per window
-- (enforced by the view-tracking function).
create table public.template_views (
  id bigint generated always as identity primary key,
  template_id uuid not null references public.templates (id) on delete cascade,
  -- A hash of who viewed (user id, or address and user agent): never the raw values.
  viewer_hash text not null,
  user_id uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index template_views_recent on public.template_views (template_id, viewer_hash, created_at desc);

-- Every table of the marketplace is behind row-level security.
alter table public.profiles enable row level security;
alter table public.categories enable row level security;
alter table public.templates enable row level security;
alter table public.templates_draft enable row level security;
alter table public.templates_pending_approval enable row level security;
alter table public.templates_rejected enable row level security;
alter table public.followers enable row level security;
alter table public.template_upvotes enable row level security;
alter table public.wishlist enable row level security;
alter table public.template_ratings enable row level security;
alter table public.orders enable row level security;
alter table public.admins enable row level security;
alter table public.newsletter_subscribers enable row level security;
alter table public.template_views enable row level security;

-- Column grants: clients may change only the columns a person edits.
revoke insert, update on public.profiles from anon, authenticated;
grant update (username, display_name, full_name, avatar_url, bio, social_links, updated_at)
  on public.profiles to authenticated;

revoke insert, update, delete on public.templates from anon, authenticated;
grant update (title, description, about_template, price, price_in_cents, tags,
              features_included, requirements, template_url, updated_at)
  on public.templates to authenticated;

revoke insert, update, delete on public.categories, public.orders, public.admins,
  public.newsletter_subscribers, public.template_views from anon, authenticated;
-- Visitors read public rows but write nothing; a creator's unpublished
-- templates and a user's wishlist are not theirs to see at all.
revoke all on public.templates_draft, public.templates_pending_approval,
  public.templates_rejected, public.wishlist from anon;
revoke insert, update, delete on public.followers, public.template_upvotes,
  public.template_ratings from anon;
-- Follows and upvotes are made and removed, never edited.
revoke update on public.followers, public.template_upvotes, public.wishlist from authenticated;
