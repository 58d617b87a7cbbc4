// Username: settable once, then locked (spec section 4). Typed text is
// lowercased; the rules are checked as it is typed, uniqueness on save.
import { useState } from 'react'
import { Link } from 'react-router'
import { Lock } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { FieldError, Input, Label } from '@/components/ui/field'
import { profilePath } from '@/lib/types'
import { UsernameRejected, useUpdateUsername } from '../api/update-username'
import { normalizeUsername, usernameError } from '../validation'
import { Card } from '@/components/ui/card'

export function UsernameSection({ userId, username }: { userId: string; username: string | null }) {
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)
  const update = useUpdateUsername(userId)

  if (username) {
    return (
      <Card title="Username" description="Your public handle and the address of your profile.">
        <Label htmlFor="username-locked" className="sr-only">Username</Label>
        <div className="relative">
          <span className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-sm text-slate-500">@</span>
          <Input id="username-locked" value={username} readOnly disabled className="pl-7 pr-9" aria-describedby="username-locked-note" />
          <Lock className="pointer-events-none absolute right-3 top-3 h-4 w-4 text-slate-500" aria-hidden />
        </div>
        <p id="username-locked-note" className="mt-2 flex items-start gap-2 text-sm text-slate-600" data-testid="username-locked">
          Your username is set and cannot be changed: links to your profile and templates rely on it.
        </p>
        <p className="mt-1 text-sm">
          <Link to={profilePath({ id: userId, username })} className="font-medium text-brand-700 hover:underline">
            View your public profile
          </Link>
        </p>
      </Card>
    )
  }

  return (
    <Card title="Username" description="Choose carefully: a username can be set only once.">
      <form
        noValidate
        className="flex flex-col gap-3 sm:flex-row sm:items-start"
        onSubmit={(e) => {
          e.preventDefault()
          const invalid = usernameError(value)
          setError(invalid)
          if (invalid) return
          update.mutate(value, {
            onError: (failure) => {
              if (failure instanceof UsernameRejected) setError(failure.message)
            },
          })
        }}
      >
        <div className="flex-1">
          <Label htmlFor="username" className="sr-only">Username</Label>
          <div className="relative">
            <span className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-sm text-slate-500">@</span>
            <Input
              id="username"
              value={value}
              placeholder="your-username"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              className="pl-7"
              aria-invalid={!!error}
              aria-describedby={error ? 'username-error' : 'username-hint'}
              onChange={(e) => {
                const next = normalizeUsername(e.target.value)
                setValue(next)
                setError(next ? usernameError(next) : null)
              }}
            />
          </div>
          <FieldError id="username-error">{error}</FieldError>
          {!error && (
            <p id="username-hint" className="mt-1 text-xs text-slate-600">
              3 to 30 lowercase letters, numbers, underscores or hyphens.
            </p>
          )}
        </div>
        <Button type="submit" disabled={update.isPending || !value}>
          {update.isPending ? 'Saving...' : 'Save username'}
        </Button>
      </form>
    </Card>
  )
}
