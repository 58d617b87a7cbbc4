// Saves the edit screen: the content columns of a published template,
// filtered by id AND owner (spec section 7, Writes → Edit template update).
// price_in_cents follows the price on the server (trigger
// templates_price_in_cents, migrations/20261122000010_marketplace_functions.sql).
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'

export interface TemplateEdit {
  title: string
  description: string
  about_template: string
  price: number
  tags: string[]
  features_included: string[]
  requirements: string[]
}

export async function updateTemplate(id: string, userId: string, edit: TemplateEdit, now: Date = new Date()): Promise<void> {
  const { data, error } = await getSupabase()
    .from('templates')
    .update({ ...edit, updated_at: now.toISOString() })
    .eq('id', id)
    .eq('user_id', userId)
    .select('id')
  if (error) throw error
  // Nothing updated: the template is gone or not the user's.
  if (!data || data.length === 0) throw new Error('Template not found')
}

export function useUpdateTemplate(id: string, userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (edit: TemplateEdit) => updateTemplate(id, userId, edit),
    onSuccess: () => {
      toastSuccess('Template updated successfully')
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
      // Public lists and the template page show the new content.
      void queryClient.invalidateQueries({ queryKey: ['templates'] })
    },
    onError: () => toastError('Failed to update template. Please try again.'),
  })
}
