import { useMutation, useQuery } from '@tanstack/react-query'
import { api, apiGet } from '@/lib/api'

export type ConfigEntry = { name: string; value: string | null; secret: boolean; set: boolean }
export type Migration = { set: string; version: number | string; description: string; installed_on: string | null; success: boolean }
export type Settings = { config: ConfigEntry[]; keys: { anon: string; service_role: string }; migrations: Migration[] }

export function useSettings() {
  return useQuery({ queryKey: ['settings'], queryFn: () => apiGet<Settings>('/settings') })
}

export function useRevealServiceKey() {
  return useMutation({
    mutationFn: () => api<{ service_role: string }>('POST', '/settings/service-key').then((a) => a.service_role),
  })
}
