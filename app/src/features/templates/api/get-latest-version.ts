// The latest version of a published template (issue 44, item 6): its
// number, changelog line and date, or null when the template is still its
// first version (migrations/20261128000200_template_versions.sql).
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export interface TemplateVersion {
  version: number
  changelog: string
  created_at: string
}

export async function getLatestVersion(templateId: string): Promise<TemplateVersion | null> {
  const { data, error } = await getSupabase()
    .from('template_versions')
    .select('version, changelog, created_at')
    .eq('template_id', templateId)
    .order('version', { ascending: false })
    .limit(1)
  if (error) throw error
  return ((data ?? []) as TemplateVersion[])[0] ?? null
}

export const latestVersionQueryOptions = (templateId: string) =>
  queryOptions({ queryKey: ['templates', 'latest-version', templateId], queryFn: () => getLatestVersion(templateId) })

export function useLatestVersion(templateId: string) {
  return useQuery(latestVersionQueryOptions(templateId))
}
