// A free template: the function create-free-order makes the order and answers
// the download URL, to which the browser then goes.
import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export async function createFreeOrder(productId: string, buyerEmail: string): Promise<string> {
  const { data, error } = await getSupabase().functions.invoke('create-free-order', {
    body: { product_id: productId, buyer_email: buyerEmail },
  })
  const answer = (data ?? {}) as { downloadUrl?: string; error?: string }
  if (error) {
    // The function's own error text when it sent one.
    let message = answer.error
    const context = (error as { context?: Response }).context
    if (!message && context && typeof context.json === 'function') {
      try {
        message = ((await context.clone().json()) as { error?: string }).error
      } catch {
        /* not JSON */
      }
    }
    throw new Error(message || 'Something went wrong')
  }
  if (answer.error) throw new Error(answer.error)
  if (!answer.downloadUrl) throw new Error('Something went wrong')
  return answer.downloadUrl
}

export function useCreateFreeOrder() {
  return useMutation({
    mutationFn: ({ productId, buyerEmail }: { productId: string; buyerEmail: string }) =>
      createFreeOrder(productId, buyerEmail),
  })
}
