import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Field, Input } from '@/components/ui/field'
import { ApiError, errorMessage } from '@/lib/api'
import { useSignIn } from '../api/session'

/** What a refused sign-in says. */
export function signInErrorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'invalid_credentials') return 'Wrong e-mail or password.'
    if (error.code === 'too_many_attempts') return 'Too many failed attempts. Wait a while before trying again.'
  }
  return errorMessage(error, 'Signing in failed.')
}

export function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const signIn = useSignIn()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    signIn.mutate({ email: email.trim(), password }, { onSuccess: onSignedIn })
  }
  const error = signIn.isError ? signInErrorText(signIn.error) : null
  return (
    <form onSubmit={submit} className="space-y-4" noValidate aria-describedby={error ? 'sign-in-error' : undefined}>
      <Field id="email" label="Email">
        <Input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      <Field id="password" label="Password">
        <Input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      {error && (
        <p id="sign-in-error" role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={signIn.isPending || !email.trim() || !password}>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </Button>
    </form>
  )
}
