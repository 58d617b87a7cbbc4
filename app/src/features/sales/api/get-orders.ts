// One page of the orders of the creator's templates, newest first, buyers'
// addresses masked by the server: `POST /api/creator/orders`.
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { api, type CreatorOrdersResponse } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'
import type { OrderStatusFilter } from '../model'

/** Orders per page (the server allows up to 50). */
export const ORDERS_PAGE_SIZE = 10

export async function getOrders(page: number, status: OrderStatusFilter): Promise<CreatorOrdersResponse> {
  const { data, error } = await api.creatorOrders(getSupabase(), { page, pageSize: ORDERS_PAGE_SIZE, status })
  if (error) throw error
  return data
}

export const ordersQueryOptions = (userId: string, page: number, status: OrderStatusFilter) =>
  queryOptions({
    queryKey: ['sales', userId, 'orders', page, status],
    queryFn: () => getOrders(page, status),
    placeholderData: keepPreviousData,
  })

export function useOrders(userId: string, page: number, status: OrderStatusFilter) {
  return useQuery(ordersQueryOptions(userId, page, status))
}
