// Narrow row types of the marketplace tables, as the app reads them. (The
// SDK's generated `Database` type replaces these once it exists.)

export interface Category {
  id: string
  name: string
  slug: string
  description: string | null
}

export interface ProfileSummary {
  id: string
  username: string | null
  display_name: string | null
  avatar_url: string | null
}

export interface Profile extends ProfileSummary {
  bio: string | null
  social_links: Partial<Record<'twitter' | 'instagram' | 'website' | 'github', string>> | null
  created_at: string
}

export interface TemplateRow {
  id: string
  user_id: string
  title: string
  description: string | null
  about_template: string | null
  price: number | string
  price_in_cents: number
  category_id: string | null
  tags: string[] | null
  preview_image_url: string | null
  preview_images: string[] | null
  template_file_url: string | null
  template_url: string | null
  features_included: string[] | null
  requirements: string[] | null
  status: string
  is_published: boolean
  average_rating: number | string
  total_ratings: number
  downloads_count: number
  total_views: number
  author: string | null
  created_at: string
  updated_at: string
}

/** A template with its category, creator and upvote count merged in. */
export interface Template extends TemplateRow {
  category: Pick<Category, 'id' | 'name' | 'slug'> | null
  profile: ProfileSummary | null
  upvote_count: number
}

export interface PendingTemplate {
  id: string
  creator_id: string
  title: string
  description: string | null
  price: number | string
  preview_image_url: string | null
  tags: string[] | null
  status: 'Pending Approval' | 'Active' | 'Rejected'
  created_at: string
}

export interface CreatorStatistics {
  id: string
  templates_count: number
  total_downloads: number
  total_upvotes: number
  rating: number | string
  weekly_growth_percentage: number | string
  categories: string[]
}

export interface TrendingCreator {
  id: string
  rank: number
  weekly_growth_percentage: number | string
  username: string | null
  display_name: string | null
  avatar_url: string | null
  bio: string | null
  rating: number | string
  categories: string[] | null
  templates_count: number
  total_downloads: number
}

/** The name a person is shown under. */
export function personName(p: Pick<ProfileSummary, 'display_name' | 'username'> | null | undefined): string {
  return p?.display_name?.trim() || p?.username || 'Anonymous'
}

/** Links fall back to /profile/{id} when no username exists. */
export function profilePath(p: Pick<ProfileSummary, 'id' | 'username'>): string {
  return `/profile/${encodeURIComponent(p.username || p.id)}`
}

/** An order (spec section 3) as its buyer reads it (policies/0011_orders.sql). */
export interface OrderRow {
  id: string
  product_id: string
  buyer_id: string | null
  buyer_email: string
  price_in_cents: number
  currency: string
  /** free, pending, paid or failed. */
  payment_status: string
  download_url: string | null
  created_at: string
}
