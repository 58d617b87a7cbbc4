// The admin's review queue: pending templates with their category, newest
// first, and the creators' profiles merged in (spec section 7, Reads → Admin).
import { queryOptions } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Category, ProfileSummary } from '@/lib/types'

export const PENDING_STATUS = 'Pending Approval'

export interface ReviewTemplate {
  id: string
  creator_id: string
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
  /** The workspace-app link, for a link-only template. */
  template_url: string | null
  status: 'Pending Approval' | 'Active' | 'Rejected'
  rejection_comment: string | null
  created_at: string
  category: Pick<Category, 'name' | 'slug'> | null
  creator: Pick<ProfileSummary, 'id' | 'display_name' | 'username'> | null
}

type PendingRow = Omit<ReviewTemplate, 'creator'>

const COLUMNS =
  'id, creator_id, title, description, about_template, price, price_in_cents, category_id, tags, preview_image_url, ' +
  'preview_images, template_file_url, template_url, status, rejection_comment, created_at, category:categories(name, slug)'

async function withCreators(rows: PendingRow[]): Promise<ReviewTemplate[]> {
  const ids = [...new Set(rows.map((r) => r.creator_id))]
  if (ids.length === 0) return []
  const { data, error } = await getSupabase().from('profiles').select('id, display_name, username').in('id', ids)
  if (error) throw error
  const byId = new Map((data as ReviewTemplate['creator'][]).map((p) => [p!.id, p]))
  return rows.map((r) => ({ ...r, creator: byId.get(r.creator_id) ?? null }))
}

export async function getPendingReview(): Promise<ReviewTemplate[]> {
  const { data, error } = await getSupabase()
    .from('templates_pending_approval')
    .select(COLUMNS)
    .eq('status', PENDING_STATUS)
    .order('created_at', { ascending: false })
  if (error) throw error
  return withCreators((data ?? []) as unknown as PendingRow[])
}

/** One submission by id, whatever its status; null when there is none. */
export async function getReviewTemplate(id: string): Promise<ReviewTemplate | null> {
  const { data, error } = await getSupabase().from('templates_pending_approval').select(COLUMNS).eq('id', id).maybeSingle()
  if (error) throw error
  if (!data) return null
  const [row] = await withCreators([data as unknown as PendingRow])
  return row
}

export const reviewKeys = {
  all: ['admin', 'review'] as const,
  list: () => [...reviewKeys.all, 'list'] as const,
  one: (id: string) => [...reviewKeys.all, 'one', id] as const,
}

export const pendingReviewQueryOptions = () => queryOptions({ queryKey: reviewKeys.list(), queryFn: getPendingReview })

export const reviewTemplateQueryOptions = (id: string) =>
  queryOptions({ queryKey: reviewKeys.one(id), queryFn: () => getReviewTemplate(id) })
