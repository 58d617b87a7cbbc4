// Small marketplace data for tests.
import type { Row } from './fake-supabase'

export const CATEGORIES: Row[] = [
  { id: 'c-prod', name: 'Productivity', slug: 'productivity', description: 'Get more done.' },
  { id: 'c-biz', name: 'Business', slug: 'business', description: 'Run the company.' },
  { id: 'c-fin', name: 'Finance', slug: 'finance', description: 'Money matters.' },
]

export const PROFILES: Row[] = [
  { id: 'u-maya', username: 'mayachen', display_name: 'Maya Chen', avatar_url: null, bio: 'Systems designer.', social_links: { website: 'https://example.com/maya' }, created_at: '2024-01-01T00:00:00Z' },
  { id: 'u-leo', username: 'leo-builds', display_name: 'Leo Martins', avatar_url: null, bio: 'Founder templates.', social_links: {}, created_at: '2024-02-01T00:00:00Z' },
  { id: 'u-kim', username: 'kimnovak', display_name: 'Kim Novak', avatar_url: null, bio: null, social_links: {}, created_at: '2024-03-01T00:00:00Z' },
]

export function template(overrides: Row): Row {
  return {
    description: 'A useful template.',
    about_template: '## About\n\nIt helps.',
    price: 0,
    price_in_cents: 0,
    category_id: 'c-prod',
    tags: [],
    preview_image_url: '/demo/planner.svg',
    preview_images: [],
    template_file_url: null,
    template_url: null,
    features_included: [],
    requirements: [],
    status: 'published',
    is_published: true,
    average_rating: 0,
    total_ratings: 0,
    downloads_count: 0,
    total_views: 0,
    author: null,
    created_at: '2024-05-01T00:00:00Z',
    updated_at: '2024-05-01T00:00:00Z',
    user_id: 'u-maya',
    ...overrides,
  }
}

export const TEMPLATES: Row[] = [
  template({ id: 't-planner', title: 'Calm Weekly Planner', description: 'Plan the week in ten minutes.', price: 0, tags: ['planner', 'weekly', 'focus', 'calm'], downloads_count: 1240, created_at: '2024-05-03T00:00:00Z' }),
  template({ id: 't-crm', title: 'Startup CRM', description: 'Track leads and deals.', price: 19, price_in_cents: 1900, category_id: 'c-biz', user_id: 'u-leo', tags: ['crm'], downloads_count: 420, created_at: '2024-05-02T00:00:00Z' }),
  template({ id: 't-budget', title: 'Budget Planner', description: 'Monthly budget and goals.', price: 5, price_in_cents: 500, category_id: 'c-fin', downloads_count: 640, created_at: '2024-05-01T00:00:00Z' }),
]

/** Upvote rows: planner 3, crm 1, budget 2. */
export const UPVOTE_COUNTS: Row[] = [
  { template_id: 't-planner', upvote_count: 3, latest_upvote_at: '2024-05-10T00:00:00Z' },
  { template_id: 't-crm', upvote_count: 1, latest_upvote_at: '2024-05-11T00:00:00Z' },
  { template_id: 't-budget', upvote_count: 2, latest_upvote_at: '2024-05-09T00:00:00Z' },
]

/** The view creator_listing over profiles and templates: creators with a published template. */
export function creatorListing(profiles: Row[], templates: Row[]): Row[] {
  return profiles.flatMap((p) => {
    const mine = templates.filter((t) => t.user_id === p.id && t.is_published)
    if (mine.length === 0) return []
    return [{
      id: p.id,
      username: p.username ?? null,
      display_name: p.display_name ?? null,
      avatar_url: p.avatar_url ?? null,
      bio: p.bio ?? null,
      created_at: p.created_at,
      template_count: mine.length,
      total_downloads: mine.reduce((sum, t) => sum + (Number(t.downloads_count) || 0), 0),
      is_certified: false,
      sort_name: String(p.display_name || p.username || '').toLowerCase(),
    }]
  })
}

export function marketplace(extra: Record<string, Row[]> = {}): Record<string, Row[]> {
  return {
    categories: CATEGORIES,
    profiles: PROFILES,
    templates: TEMPLATES,
    template_upvote_counts: UPVOTE_COUNTS,
    creator_listing: creatorListing(extra.profiles ?? PROFILES, extra.templates ?? TEMPLATES),
    ...extra,
  }
}

export const MAYA = { id: 'u-maya', email: 'maya@example.com', password: 'secret-pass', display_name: 'Maya Chen' }
export const LEO = { id: 'u-leo', email: 'leo@example.com', password: 'secret-pass', display_name: 'Leo Martins' }
