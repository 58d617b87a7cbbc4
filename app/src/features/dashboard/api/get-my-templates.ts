// My Templates: the user's templates in one store (spec section 7, Reads →
// My templates). Drafts newest edit first, pending newest submission first,
// rejected newest rejection first, published (status 'published') newest
// first. Every store is read only where its owner column is the user.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { MyTemplate, TemplateKind } from '../model'

const COMMON = 'id, title, description, price, preview_image_url, tags'

type Row = Record<string, unknown>

function toMyTemplate(kind: TemplateKind, r: Row, date: unknown): MyTemplate {
  return {
    id: String(r.id),
    kind,
    title: (r.title as string | null) || 'Untitled template',
    description: (r.description as string | null) ?? null,
    price: (r.price as number | string | null) ?? 0,
    preview_image_url: (r.preview_image_url as string | null) ?? null,
    tags: (r.tags as string[] | null) ?? [],
    date: (date as string | null) ?? null,
    rejection_comment: (r.rejection_comment as string | null) ?? null,
    rejection_date: (r.rejection_date as string | null) ?? null,
    downloads_count: (r.downloads_count as number | null) ?? null,
  }
}

export async function getMyTemplates(kind: TemplateKind, userId: string): Promise<MyTemplate[]> {
  const supabase = getSupabase()
  switch (kind) {
    case 'draft': {
      const { data, error } = await supabase
        .from('templates_draft')
        .select(`${COMMON}, last_edited_at`)
        .eq('creator_id', userId)
        .order('last_edited_at', { ascending: false })
      if (error) throw error
      return ((data ?? []) as Row[]).map((r) => toMyTemplate(kind, r, r.last_edited_at))
    }
    case 'pending': {
      const { data, error } = await supabase
        .from('templates_pending_approval')
        .select(`${COMMON}, status, created_at`)
        .eq('creator_id', userId)
        .order('created_at', { ascending: false })
      if (error) throw error
      return ((data ?? []) as Row[]).map((r) => toMyTemplate(kind, r, r.created_at))
    }
    case 'rejected': {
      const { data, error } = await supabase
        .from('templates_rejected')
        .select(`${COMMON}, rejection_comment, rejection_date`)
        .eq('creator_id', userId)
        .order('rejection_date', { ascending: false })
      if (error) throw error
      return ((data ?? []) as Row[]).map((r) => toMyTemplate(kind, r, r.rejection_date))
    }
    case 'published': {
      const { data, error } = await supabase
        .from('templates')
        .select(`${COMMON}, downloads_count, updated_at`)
        .eq('user_id', userId)
        .eq('status', 'published')
        .order('updated_at', { ascending: false })
      if (error) throw error
      return ((data ?? []) as Row[]).map((r) => toMyTemplate(kind, r, r.updated_at))
    }
  }
}

export const myTemplatesQueryOptions = (kind: TemplateKind, userId: string) =>
  queryOptions({ queryKey: ['dashboard', 'my-templates', kind, userId], queryFn: () => getMyTemplates(kind, userId) })

export function useMyTemplates(kind: TemplateKind, userId: string | undefined, enabled = true) {
  return useQuery({ ...myTemplatesQueryOptions(kind, userId ?? ''), enabled: enabled && !!userId })
}
