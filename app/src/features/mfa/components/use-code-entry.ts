// One code from the authenticator app, as the code forms of this feature take
// it (the sign-in's second step, a prompt in place, enrolling and removing an
// app): the typed code and its error, for CodeField, and `verify(factorId)`.
import { useState } from 'react'
import { isUnreached } from '@/lib/errors'
import { errorText, toastError } from '@/lib/toast'
import { useVerifyCode } from '../api/verify-code'
import { codeError } from '../validation'

/**
 * `verify(factorId)` checks the code's shape, then proves it for the factor
 * (which raises the session to aal2) and answers whether it was taken. A
 * failure shows the server's message under the field and as a toast, with
 * `fallback` when it has none; with `clearRefused`, a refused code is cleared
 * for the next one, while a code the server never saw (no answer) is kept, to
 * be sent again (issue 24).
 */
export function useCodeEntry({ fallback, clearRefused = false }: { fallback: string; clearRefused?: boolean }) {
  const verifyCode = useVerifyCode()
  const [code, setCode] = useState('')
  const [error, setError] = useState<string | null>(null)

  const verify = async (factorId: string): Promise<boolean> => {
    const invalid = codeError(code)
    setError(invalid)
    if (invalid) return false
    try {
      await verifyCode.mutateAsync({ factorId, code })
      return true
    } catch (failure) {
      const message = errorText(failure, fallback)
      setError(message)
      if (clearRefused && !isUnreached(failure)) setCode('')
      toastError(message)
      return false
    }
  }

  return {
    verify,
    pending: verifyCode.isPending,
    /** The value, error and onChange of the CodeField (typing clears the error). */
    field: {
      value: code,
      error,
      onChange: (value: string) => {
        setCode(value)
        if (error) setError(null)
      },
    },
  }
}
