// Whether the signed-in user is an admin: a row in `admins` for their id.
// Row-level security lets a user read only their own row, so the answer says
// nothing about anyone else.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { useSession } from '@/lib/session'

export async function isAdmin(userId: string): Promise<boolean> {
  const { data, error } = await getSupabase().from('admins').select('id').eq('user_id', userId).maybeSingle()
  if (error) throw error
  return data !== null
}

export const isAdminQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['admins', userId], queryFn: () => isAdmin(userId), staleTime: 60_000 })

/**
 * `{ isAdmin, loading, failed }` for the signed-in user; a visitor is never an
 * admin. `failed`: the answer could not be read (not the same as "no").
 */
export function useIsAdmin(): { isAdmin: boolean; loading: boolean; failed: boolean } {
  const { user, loading: sessionLoading } = useSession()
  const query = useQuery({ ...isAdminQueryOptions(user?.id ?? ''), enabled: !!user })
  return {
    isAdmin: query.data === true,
    loading: sessionLoading || (!!user && query.isPending),
    failed: !!user && query.isError && query.data === undefined,
  }
}
