// The new-password screen the password-reset link (or the reset code) lands
// on: the link's recovery session is a signed-in session (an account with a
// verified factor passes its code first: the second-factor gate sends such a
// session to the code screen and back here), which sets the new password
// with auth.updateUser. Without a session the link was not valid.
import { useState, type FormEvent } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { KeyRound } from 'lucide-react'
import { Button, ButtonLink } from '@/components/ui/button'
import { Spinner } from '@/components/ui/feedback'
import { NewPasswordFields } from '@/components/new-password-fields'
import { safeRedirect } from '@/lib/nav-memory'
import { validateNewPassword, type NewPasswordErrors, type NewPasswordValues } from '@/lib/password-rules'
import { useSession } from '@/lib/session'
import { errorText, toastError, toastSuccess } from '@/lib/toast'
import { useUpdatePassword } from '../api/update-password'
import { AuthCard } from './auth-card'

export function ResetPasswordPage() {
  const { user, loading, mfaPending } = useSession()
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const update = useUpdatePassword()
  const [values, setValues] = useState<NewPasswordValues>({ password: '', confirm: '' })
  const [errors, setErrors] = useState<NewPasswordErrors>({})

  if (loading || mfaPending) return <Spinner label="Loading..." className="py-24" />

  if (!user) {
    return (
      <AuthCard icon={KeyRound} title="This link has expired" subtitle="The password reset link is invalid or has expired.">
        <ButtonLink to="/auth?mode=forgot" className="w-full" size="lg">
          Request a new link
        </ButtonLink>
      </AuthCard>
    )
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const found = validateNewPassword(values)
    setErrors(found)
    if (Object.keys(found).length) return
    try {
      await update.mutateAsync(values.password)
    } catch (failure) {
      // Too short for the server, the same as before: its own words.
      const message = errorText(failure, 'An unexpected error occurred')
      setErrors({ password: message })
      toastError(message)
      return
    }
    toastSuccess('Password updated', 'Your new password is set.')
    navigate(safeRedirect(params.get('redirect'), '/dashboard'), { replace: true })
  }

  return (
    <AuthCard icon={KeyRound} title="Set a new password" subtitle={`For ${user.email ?? 'your account'}.`}>
      <form onSubmit={submit} noValidate className="space-y-5">
        <NewPasswordFields
          idPrefix="reset"
          values={values}
          errors={errors}
          disabled={update.isPending}
          autoFocus
          onChange={(field, value) => {
            setValues((v) => ({ ...v, [field]: value }))
            if (errors[field]) setErrors((er) => ({ ...er, [field]: undefined }))
          }}
        />
        <Button type="submit" className="w-full" size="lg" disabled={update.isPending}>
          {update.isPending ? 'Saving...' : 'Set new password'}
        </Button>
      </form>
    </AuthCard>
  )
}
