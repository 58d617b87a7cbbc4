// The template the edit screen loads: by id AND owner, so another user's
// template (or an id that is not a template) resolves to null.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export interface EditableTemplate {
  id: string
  user_id: string
  title: string
  description: string | null
  about_template: string | null
  price: number | string
  tags: string[] | null
  features_included: string[] | null
  requirements: string[] | null
  preview_image_url: string | null
  preview_images: string[] | null
  status: string
  is_published: boolean
  updated_at: string
}

const COLUMNS =
  'id, user_id, title, description, about_template, price, tags, features_included, requirements, ' +
  'preview_image_url, preview_images, status, is_published, updated_at'

export async function getEditableTemplate(id: string, userId: string): Promise<EditableTemplate | null> {
  const { data, error } = await getSupabase()
    .from('templates')
    .select(COLUMNS)
    .eq('id', id)
    .eq('user_id', userId)
    .maybeSingle()
  if (error) {
    // An id that is not a uuid is simply not a template.
    if (error.code === '22P02' || error.code === 'PGRST116') return null
    throw error
  }
  return (data as unknown as EditableTemplate | null) ?? null
}

export const editableTemplateQueryOptions = (id: string, userId: string) =>
  queryOptions({
    queryKey: ['dashboard', 'editable-template', id, userId],
    queryFn: () => getEditableTemplate(id, userId),
    // The form is filled once from what the server has now.
    staleTime: 0,
  })

export function useEditableTemplate(id: string, userId: string | undefined) {
  return useQuery({ ...editableTemplateQueryOptions(id, userId ?? ''), enabled: !!userId && !!id })
}
