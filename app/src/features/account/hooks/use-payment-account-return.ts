// Back from the payment provider's onboarding at
// /dashboard/settings?stripe_account={id}: the account is stored through
// `/api/user/update-<provider>-account`, then the parameter is removed from
// the URL (spec section 7). The id is taken once, at arrival, so a later
// change of the URL cannot lose it.
import { useEffect, useRef } from 'react'
import { useSearchParams } from 'react-router'
import { useUpdatePaymentAccount } from '../api/update-payment-account'

export const RETURN_PARAM = 'stripe_account'

export function usePaymentAccountReturn(userId: string) {
  const [params, setParams] = useSearchParams()
  const account = params.get(RETURN_PARAM)
  const update = useUpdatePaymentAccount(userId)
  const handled = useRef<string | null>(null)
  const { mutate } = update

  useEffect(() => {
    if (!account || !userId || handled.current === account) return
    handled.current = account
    mutate(account, {
      onSettled: () =>
        setParams(
          (current) => {
            const next = new URLSearchParams(current)
            next.delete(RETURN_PARAM)
            return next
          },
          { replace: true },
        ),
    })
  }, [account, userId, mutate, setParams])

  return update
}
