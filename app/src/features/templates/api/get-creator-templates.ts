// A creator's other published templates for the template page's creator
// card: the most downloaded few, the one on the page left out.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export const CREATOR_TEMPLATES_LIMIT = 4

export interface CreatorTemplate {
  id: string
  title: string
  preview_image_url: string | null
  price: number | string
}

export async function getCreatorTemplates(userId: string, exceptId: string): Promise<CreatorTemplate[]> {
  const { data, error } = await getSupabase()
    .from('templates')
    .select('id, title, preview_image_url, price')
    .eq('user_id', userId)
    .eq('is_published', true)
    .neq('id', exceptId)
    .order('downloads_count', { ascending: false })
    .limit(CREATOR_TEMPLATES_LIMIT)
  if (error) throw error
  return (data ?? []) as CreatorTemplate[]
}

export const creatorTemplatesQueryOptions = (userId: string, exceptId: string) =>
  queryOptions({
    queryKey: ['templates', 'list', { creator: userId, except: exceptId }],
    queryFn: () => getCreatorTemplates(userId, exceptId),
  })

export function useCreatorTemplates(userId: string, exceptId: string) {
  return useQuery(creatorTemplatesQueryOptions(userId, exceptId))
}
