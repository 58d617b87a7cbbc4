// A free template: the function create-free-order makes the order and answers
// the download URL, to which the browser then goes.
import { useMutation } from '@tanstack/react-query'
import { functions } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'

export async function createFreeOrder(productId: string, buyerEmail: string): Promise<string> {
  const { data, error } = await functions.createFreeOrder(getSupabase(), { product_id: productId, buyer_email: buyerEmail })
  // The function's own error text when it sent one.
  // (The cause keeps the status: an unreached server is worded as such, lib/toast.ts errorText.)
  if (error) throw new Error(error.body?.error || 'Something went wrong', { cause: error })
  const refused = (data as { error?: unknown } | null)?.error
  if (typeof refused === 'string' && refused) throw new Error(refused)
  if (!data?.downloadUrl) throw new Error('Something went wrong')
  return data.downloadUrl
}

export function useCreateFreeOrder() {
  return useMutation({
    mutationFn: ({ productId, buyerEmail }: { productId: string; buyerEmail: string }) =>
      createFreeOrder(productId, buyerEmail),
  })
}
