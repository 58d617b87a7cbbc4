import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, apiGet, query } from '@/lib/api'

export type Policy = {
  name: string
  command: 'ALL' | 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE' | string
  permissive: boolean
  roles: string[]
  using: string | null
  with_check: string | null
}

export type TablePolicies = { schema: string; name: string; rls_enabled: boolean; rls_forced: boolean; policies: Policy[] }

export type Access = 'all' | 'policy' | 'none'
export type Cell = { access: Access; policies: string[]; reason: string }
export type Matrix = { roles: string[]; commands: string[]; cells: Record<string, Record<string, Cell>> }

export function usePolicies(schema: string) {
  return useQuery({
    queryKey: ['policies', schema],
    enabled: !!schema,
    queryFn: () => apiGet<{ tables: TablePolicies[] }>(`/policies${query({ schema })}`).then((a) => a.tables),
  })
}

export function useMatrix(schema: string, table: string) {
  return useQuery({
    queryKey: ['policies', schema, 'matrix', table],
    queryFn: () => apiGet<Matrix>(`/policies/matrix${query({ schema, table })}`),
  })
}

export function useSetRls() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (input: { schema: string; table: string; enabled: boolean }) => api<{ rls_enabled: boolean }>('PUT', '/policies/rls', input),
    onSettled: (_a, _e, input) => client.invalidateQueries({ queryKey: ['policies', input.schema] }),
  })
}
