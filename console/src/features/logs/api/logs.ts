import { useQuery } from '@tanstack/react-query'
import { ApiError, apiGet, query, API_BASE } from '@/lib/api'

export type LogEntry = {
  id: string | number
  at: string
  level: 'ERROR' | 'WARN' | 'INFO' | 'DEBUG' | string
  service: string
  message: string
  method: string | null
  path: string | null
  status: number | null
  duration_ms: number | null
  request_id: string | null
}

export type LogFilters = { level: string; service: string; status: string }

export type Health = {
  database: { ok: boolean; latency_ms: number | null; size_bytes: number | null; version: string | null }
  uptime_seconds: number
  /** The node that answered: behind a load balancer, the book and counts are its own. */
  node: { name: string; pid: number }
  services: Array<{ service: string; requests: number; errors: number; mean_ms: number | null; p95_ms: number | null }>
  realtime: { sockets: number; topics: number; channels: number }
}

export type MailMessage = { id: string | number; to: string; subject: string; text: string; links: string[] | null; created_at: string }

export function useHealth() {
  return useQuery({ queryKey: ['health'], queryFn: () => apiGet<Health>('/health'), refetchInterval: 5000 })
}

/** The seed of the tail: the last entries that match, oldest first. */
export function useLogSeed(filters: LogFilters, enabled: boolean) {
  return useQuery({
    queryKey: ['logs', filters],
    enabled,
    staleTime: 0,
    gcTime: 0,
    queryFn: ({ signal }) => apiGet<{ entries: LogEntry[] }>(`/logs${query({ ...filters, limit: 200 })}`, { signal }).then((a) => a.entries),
  })
}

export function logStreamUrl(filters: LogFilters): string {
  return `${API_BASE}/logs/stream${query(filters)}`
}

/** The dev mailbox's messages; null when e-mail goes out through SMTP (404 no_mailbox). */
export function useMailbox() {
  return useQuery({
    queryKey: ['mailbox'],
    refetchInterval: 5000,
    queryFn: async () => {
      try {
        return (await apiGet<{ messages: MailMessage[] }>('/mailbox')).messages
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null
        throw error
      }
    },
  })
}
