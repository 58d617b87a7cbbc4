// The versions of one of the user's published templates, newest first
// (migrations/20261128000200_template_versions.sql): number, changelog line,
// what changed (the new file's name) and when.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export interface VersionEntry {
  version: number
  changelog: string
  file_changed: boolean
  previews_changed: boolean
  /** The new file's name, when the file changed. */
  file_name: string | null
  created_at: string
}

export async function getTemplateVersions(templateId: string): Promise<VersionEntry[]> {
  const { data, error } = await getSupabase()
    .from('template_versions')
    .select('version, changelog, file_changed, previews_changed, file_name, created_at')
    .eq('template_id', templateId)
    .order('version', { ascending: false })
  if (error) throw error
  return (data ?? []) as VersionEntry[]
}

export const templateVersionsQueryOptions = (templateId: string) =>
  queryOptions({ queryKey: ['dashboard', 'template-versions', templateId], queryFn: () => getTemplateVersions(templateId) })

export function useTemplateVersions(templateId: string) {
  return useQuery(templateVersionsQueryOptions(templateId))
}
