import { getSupabase } from '@/lib/supabase'

/** Whether another profile (not `userId`'s) already has this username. */
export async function isUsernameTaken(username: string, userId: string): Promise<boolean> {
  const { data, error } = await getSupabase()
    .from('profiles')
    .select('id')
    .eq('username', username)
    .neq('id', userId)
    .limit(1)
  if (error) throw error
  return (data ?? []).length > 0
}
