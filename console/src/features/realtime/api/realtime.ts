import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, apiGet } from '@/lib/api'

export type RealtimeStatus = { sockets: number; topics: number; channels: number; tables: Array<{ schema: string; table: string }> }

export type Change = {
  type: 'INSERT' | 'UPDATE' | 'DELETE' | string
  schema: string
  table: string
  commit_timestamp: string
  record: Record<string, unknown> | null
  old_record: Record<string, unknown> | null
}

export type Invocation = { at: string; method: string; path: string; route: string | null; status: number; duration_ms: number }

export function useRealtimeStatus() {
  return useQuery({ queryKey: ['realtime'], queryFn: () => apiGet<RealtimeStatus>('/realtime'), refetchInterval: 2000 })
}

export function useSetPublished() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (input: { schema: string; table: string; enabled: boolean }) => api('POST', '/realtime/tables', input),
    onSettled: () => client.invalidateQueries({ queryKey: ['realtime'] }),
  })
}

export function useInvocations() {
  return useQuery({
    queryKey: ['invocations'],
    queryFn: () => apiGet<{ invocations: Invocation[] }>('/functions/invocations').then((a) => a.invocations),
    refetchInterval: 3000,
  })
}

export function changesUrl(schema: string, table: string): string {
  return `/_/console/api/realtime/changes?${new URLSearchParams({ schema, table }).toString()}`
}
