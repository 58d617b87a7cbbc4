// The creators page: every profile, newest first, with the number of its
// published templates and their downloads; only creators with at least one
// published template are listed.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { ProfileSummary } from '@/lib/types'

export interface Creator extends ProfileSummary {
  bio: string | null
  created_at: string
  template_count: number
  total_downloads: number
  is_certified: boolean
}

export async function getCreators(): Promise<Creator[]> {
  const supabase = getSupabase()
  const [profiles, templates] = await Promise.all([
    supabase
      .from('profiles')
      .select('id, username, display_name, avatar_url, bio, created_at')
      .order('created_at', { ascending: false }),
    supabase.from('templates').select('user_id, downloads_count').eq('is_published', true),
  ])
  if (profiles.error) throw profiles.error
  if (templates.error) throw templates.error
  const stats = new Map<string, { count: number; downloads: number }>()
  for (const t of (templates.data ?? []) as Array<{ user_id: string; downloads_count: number }>) {
    const s = stats.get(t.user_id) ?? { count: 0, downloads: 0 }
    s.count += 1
    s.downloads += Number(t.downloads_count) || 0
    stats.set(t.user_id, s)
  }
  return ((profiles.data ?? []) as Array<Omit<Creator, 'template_count' | 'total_downloads' | 'is_certified'>>)
    .map((p) => ({
      ...p,
      template_count: stats.get(p.id)?.count ?? 0,
      total_downloads: stats.get(p.id)?.downloads ?? 0,
      is_certified: false,
    }))
    .filter((c) => c.template_count >= 1)
}

export const creatorsQueryOptions = () => queryOptions({ queryKey: ['creators', 'list'], queryFn: getCreators })

export function useCreators() {
  return useQuery(creatorsQueryOptions())
}

export const CREATOR_SORTS = ['downloads', 'templates', 'name', 'certified'] as const
export type CreatorSort = (typeof CREATOR_SORTS)[number]

/** Client-side search and sort of the creators list. */
export function filterCreators(creators: Creator[], search: string, sort: CreatorSort): Creator[] {
  const needle = search.trim().toLowerCase()
  const found = needle
    ? creators.filter((c) =>
        [c.display_name, c.username, c.bio].some((v) => (v ?? '').toLowerCase().includes(needle)),
      )
    : [...creators]
  const name = (c: Creator) => (c.display_name || c.username || '').toLowerCase()
  const order: Record<CreatorSort, (a: Creator, b: Creator) => number> = {
    downloads: (a, b) => b.total_downloads - a.total_downloads,
    templates: (a, b) => b.template_count - a.template_count,
    name: (a, b) => name(a).localeCompare(name(b), 'en-US'),
    certified: (a, b) => Number(b.is_certified) - Number(a.is_certified),
  }
  return found.sort(order[sort])
}
