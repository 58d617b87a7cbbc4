import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

/** Whether the user has upvoted the template. */
export async function getUserUpvote(templateId: string, userId: string): Promise<boolean> {
  const { data, error } = await getSupabase()
    .from('template_upvotes')
    .select('template_id')
    .eq('template_id', templateId)
    .eq('user_id', userId)
    .maybeSingle()
  if (error && error.code !== 'PGRST116') throw error
  return !!data
}

export const userUpvoteQueryOptions = (templateId: string, userId: string) =>
  queryOptions({ queryKey: ['templates', 'upvote', templateId, userId], queryFn: () => getUserUpvote(templateId, userId) })

export function useUserUpvote(templateId: string, userId: string | undefined) {
  return useQuery({ ...userUpvoteQueryOptions(templateId, userId ?? ''), enabled: !!userId })
}
