import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Factor, User } from '@supabase/supabase-js'
import { api, apiGet, query } from '@/lib/api'
import { admin, unwrap } from '@/lib/supabase'

export type UserRow = {
  id: string
  email: string | null
  phone: string | null
  created_at: string
  last_sign_in_at: string | null
  confirmed_at: string | null
  banned_until: string | null
  providers: string[]
  status: 'active' | 'unconfirmed' | 'banned' | string
}

export type UserList = { users: UserRow[]; total: number; page: number; per_page: number }

export type UserSession = {
  id: string
  created_at: string
  updated_at: string | null
  refreshed_at: string | null
  user_agent: string | null
  ip: string | null
  aal: string | null
  not_after: string | null
}

export const PER_PAGE = 50

export type UserFilters = { q: string; provider: string; status: string; page: number }

export function useUsers(filters: UserFilters) {
  return useQuery({
    queryKey: ['users', filters],
    queryFn: ({ signal }) => apiGet<UserList>(`/users${query({ ...filters, per_page: PER_PAGE })}`, { signal }),
    placeholderData: keepPreviousData,
  })
}

export function useUser(id: string) {
  return useQuery({
    queryKey: ['user', id],
    queryFn: async (): Promise<User> => unwrap(await admin().auth.admin.getUserById(id)).user,
  })
}

export function useFactors(id: string) {
  return useQuery({
    queryKey: ['user', id, 'factors'],
    queryFn: async (): Promise<Factor[]> => unwrap(await admin().auth.admin.mfa.listFactors({ userId: id })).factors,
  })
}

export function useUserSessions(id: string) {
  return useQuery({
    queryKey: ['user', id, 'sessions'],
    queryFn: () => apiGet<{ sessions: UserSession[] }>(`/users/${encodeURIComponent(id)}/sessions`).then((a) => a.sessions),
  })
}

function useInvalidateUsers() {
  const client = useQueryClient()
  return () => client.invalidateQueries({ predicate: (q) => q.queryKey[0] === 'users' || q.queryKey[0] === 'user' })
}

export function useCreateUser() {
  const invalidate = useInvalidateUsers()
  return useMutation({
    mutationFn: async (input: { email: string; password: string; autoConfirm: boolean }) =>
      unwrap(await admin().auth.admin.createUser({ email: input.email, password: input.password, email_confirm: input.autoConfirm })).user,
    onSuccess: invalidate,
  })
}

export function useInviteUser() {
  const invalidate = useInvalidateUsers()
  return useMutation({
    mutationFn: async (email: string) => unwrap(await admin().auth.admin.inviteUserByEmail(email)).user,
    onSuccess: invalidate,
  })
}

export function useSetBanned(id: string) {
  const invalidate = useInvalidateUsers()
  return useMutation({
    mutationFn: async (banned: boolean) =>
      unwrap(await admin().auth.admin.updateUserById(id, { ban_duration: banned ? '876000h' : 'none' })).user,
    onSuccess: invalidate,
  })
}

export function useSendRecovery() {
  return useMutation({
    mutationFn: async (email: string) => unwrap(await admin().auth.resetPasswordForEmail(email)),
  })
}

export function useSignOutEverywhere(id: string) {
  const invalidate = useInvalidateUsers()
  return useMutation({
    mutationFn: () => api<null>('DELETE', `/users/${encodeURIComponent(id)}/sessions`),
    onSuccess: invalidate,
  })
}

export function useDeleteUser() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => unwrap(await admin().auth.admin.deleteUser(id)),
    onSuccess: () => client.invalidateQueries({ queryKey: ['users'] }),
  })
}
