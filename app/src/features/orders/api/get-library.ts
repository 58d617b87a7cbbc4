// The Library (spec: a sidebar entry whose screen is not shown; this reading
// is ours): the signed-in user's completed orders (paid or free; a checkout
// left unpaid is not a purchase), newest first, with each template's title
// and preview merged in by id.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import type { OrderRow } from '@/lib/types'

export type LibraryOrder = Pick<OrderRow, 'id' | 'product_id' | 'price_in_cents' | 'payment_status' | 'created_at'> & {
  template: { id: string; title: string; preview_image_url: string | null } | null
}

export async function getLibrary(userId: string): Promise<LibraryOrder[]> {
  const supabase = getSupabase()
  const { data, error } = await supabase
    .from('orders')
    .select('id, product_id, price_in_cents, payment_status, created_at')
    .eq('buyer_id', userId)
    .in('payment_status', ['paid', 'free'])
    .order('created_at', { ascending: false })
  if (error) throw error
  const orders = (data ?? []) as Array<Omit<LibraryOrder, 'template'>>
  if (orders.length === 0) return []
  const ids = [...new Set(orders.map((o) => o.product_id))]
  const { data: templates, error: templatesError } = await supabase
    .from('templates')
    .select('id, title, preview_image_url')
    .in('id', ids)
  // Without titles the orders are still the user's: list them all the same.
  if (templatesError) logQuiet('reading the templates of the library', templatesError)
  const byId = new Map(((templates ?? []) as NonNullable<LibraryOrder['template']>[]).map((t) => [t.id, t]))
  return orders.map((o) => ({ ...o, template: byId.get(o.product_id) ?? null }))
}

export const libraryQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['orders', 'library', userId], queryFn: () => getLibrary(userId) })

export function useLibrary(userId: string | undefined) {
  return useQuery({ ...libraryQueryOptions(userId ?? ''), enabled: !!userId })
}
