// The secure download link (function validate-download): the order's file
// once its payment is confirmed. 402 means the payment is not complete yet.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { functions, type ValidateDownloadResponse } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'

/** Why a download link was refused: the HTTP status (0 when unreached) and the text to show. */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
    this.name = 'DownloadError'
  }
}

/**
 * `token` null: the signed-in buyer asks for their own order, recognised by
 * their session (the library's /download/{orderId} page).
 */
export async function validateDownload(orderId: string, token: string | null): Promise<ValidateDownloadResponse> {
  const { data, error } = await functions.validateDownload(getSupabase(), token === null ? { orderId } : { orderId, token })
  if (error) {
    if (error.status === 402) {
      throw new DownloadError('Payment not completed. Please complete your purchase first.', 402)
    }
    if (error.status === 0) throw new DownloadError('Something went wrong.', 0)
    throw new DownloadError(error.body?.error || 'Invalid or expired download link.', error.status)
  }
  if (!data) throw new DownloadError('Something went wrong.', 0)
  if (data.isPaid === false) throw new DownloadError('Payment not completed. Please complete your purchase first.', 402)
  return data
}

export const downloadQueryOptions = (orderId: string, token: string | null) =>
  queryOptions({
    queryKey: ['orders', 'secure-download', orderId, token],
    queryFn: () => validateDownload(orderId, token),
    retry: false,
    refetchOnWindowFocus: false,
  })

export function useValidateDownload(orderId: string, token: string | null, enabled: boolean) {
  return useQuery({ ...downloadQueryOptions(orderId, token), enabled })
}
