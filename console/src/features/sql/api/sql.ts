import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, apiGet } from '@/lib/api'

export type ResultSet = {
  command: string
  columns: Array<{ name: string; type: string }>
  rows: Array<Array<string | null>>
  row_count: number
  truncated: boolean
}

export type SqlAnswer = { results: ResultSet[]; duration_ms: number }

export type HistoryEntry = {
  id: string | number
  query: string
  read_only: boolean
  ok: boolean
  duration_ms: number | null
  ran_at: string
  operator: string | null
}

export function useRunSql() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (input: { query: string; read_only: boolean }) => api<SqlAnswer>('POST', '/sql', input),
    onSettled: () => client.invalidateQueries({ queryKey: ['sql-history'] }),
  })
}

export function useSqlHistory() {
  return useQuery({
    queryKey: ['sql-history'],
    queryFn: () => apiGet<{ history: HistoryEntry[] }>('/sql/history').then((a) => a.history),
  })
}
