// The business constants of the specification (section 9).
export const MOBILE_BREAKPOINT_PX = 768
export const TRENDING_TEMPLATES_LIMIT = 3
export const LATEST_TEMPLATES_LIMIT = 8
export const TOP_CREATORS_LIMIT = 4
export const CARD_TAGS_SHOWN = 2
export const CREATOR_CATEGORIES_SHOWN = 2
export const SUGGESTIONS_LIMIT = 3
export const SEARCH_DEBOUNCE_MS = 300
export const NAV_RESTORE_DELAY_MS = 100
export const VIEW_REREAD_DELAY_MS = 1000
/** A burst of live upvote changes on an open template page: one re-read of the count. */
export const LIVE_UPVOTE_REREAD_MS = 250
export const DOWNLOAD_PREPARING_MS = 1200
export const MOST_POPULAR_MIN_UPVOTES = 2
export const AVATAR_MAX_BYTES = 5 * 1024 * 1024
export const AVATAR_MIN_DIMENSION_PX = 400
export const AVATAR_MAX_DIMENSION_PX = 1000
export const AVATAR_BUCKET = 'avatars'
export const TEMPLATES_BUCKET = 'templates'
/** The private bucket of paid templates' files (signed links only). */
export const PAID_FILES_BUCKET = 'template-files'
export const LOCALE = 'en-US'

/** The header's Categories dropdown and the home tiles (spec section 2). */
export const HEADER_CATEGORIES = [
  { name: 'Productivity', slug: 'productivity' },
  { name: 'Health & Fitness', slug: 'health-fitness' },
  { name: 'Personal', slug: 'personal' },
  { name: 'Education', slug: 'education' },
] as const

export const HOME_CATEGORY_TILES = [
  { name: 'Productivity', slug: 'productivity' },
  { name: 'Business', slug: 'business' },
  { name: 'Personal', slug: 'personal' },
  { name: 'Education', slug: 'education' },
  { name: 'Finance', slug: 'finance' },
  { name: 'Health & Fitness', slug: 'health-fitness' },
] as const

/** What every template includes and needs when it lists nothing itself. */
export const DEFAULT_INCLUDES = ['Template file', 'Setup instructions', 'Video tutorial', '30-day support']
export const DEFAULT_REQUIREMENTS = ['A free workspace-app account', 'Basic knowledge of the workspace app']

export const BRAND = 'Plinth Templates'

/** The dashboard sidebar (spec section 9): its cookie, kept 7 days, and Ctrl/Cmd+B. */
export const SIDEBAR_COOKIE = 'sidebar_state'
export const SIDEBAR_COOKIE_MAX_AGE_S = 7 * 24 * 60 * 60
export const SIDEBAR_SHORTCUT_KEY = 'b'
/** The admin panel, where admin pages return to. */
export const ADMIN_PATH = '/dashboard/admin'
/** The admin counters' "This Week" window. */
export const PENDING_THIS_WEEK_DAYS = 7
/** A burst of changes to the review queue: one re-read of it. */
export const LIVE_REVIEW_REREAD_MS = 200
/** Admin pages scroll to the top this long after a redirect. */
export const ADMIN_REDIRECT_SCROLL_MS = 100
/** Checkout: the secure download page opens this long after a successful payment. */
export const PAYMENT_REDIRECT_MS = 1000

/**
 * When the server is unreachable or slow (issue 24): every request to the
 * backend is given up after this long, so that a stalled one becomes an error
 * and the screen offers "Try again" instead of loading forever. File uploads
 * are exempt (their time grows with their size). A walk may lower it for one
 * page with `window.__plinthRequestTimeoutMs` (see lib/timed-fetch.ts).
 */
export const REQUEST_TIMEOUT_MS = 15_000
/** A failed read is tried again this many times (connection problems only; never a refusal, never a timeout). */
export const QUERY_RETRIES = 2
/** The wait before the first retry of a read; it doubles for the next one. */
export const QUERY_RETRY_BASE_MS = 1000
/** A 503's Retry-After up to this long is waited out once before the request is sent again; a longer one fails at once. */
export const MAX_RETRY_AFTER_MS = 5000
/** A page still loading after this long says it is still working. */
export const SLOW_LOADING_NOTICE_MS = 5000
