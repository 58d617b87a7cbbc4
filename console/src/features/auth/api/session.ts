import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, apiGet } from '@/lib/api'

export type Session = { operator: { id: string; email: string }; expires_at: string }

export const SESSION_KEY = ['session']

export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: () => apiGet<Session>('/session'),
    retry: false,
    staleTime: 5 * 60_000,
  })
}

export function useSignIn() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (input: { email: string; password: string }) => api<Session>('POST', '/session', input),
    onSuccess: (session) => {
      client.clear()
      client.setQueryData(SESSION_KEY, session)
    },
  })
}

export function useSignOut() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: () => api<null>('DELETE', '/session'),
    onSettled: () => client.clear(),
  })
}
