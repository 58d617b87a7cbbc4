// The creator's revenue per day/week/month, totals and per-template figures:
// `POST /api/creator/sales` (crates/marketplace/src/sales.rs), which reads
// only the orders of the caller's own templates.
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { api, type CreatorSalesResponse } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'
import type { SalesRange } from '../model'

export async function getSales(range: SalesRange, timeZone: string): Promise<CreatorSalesResponse> {
  const { data, error } = await api.creatorSales(getSupabase(), { range, timeZone })
  if (error) throw error
  return data
}

export const salesQueryOptions = (userId: string, range: SalesRange, timeZone: string) =>
  queryOptions({
    queryKey: ['sales', userId, 'summary', range, timeZone],
    queryFn: () => getSales(range, timeZone),
    placeholderData: keepPreviousData,
  })

export function useSales(userId: string, range: SalesRange, timeZone: string) {
  return useQuery(salesQueryOptions(userId, range, timeZone))
}
