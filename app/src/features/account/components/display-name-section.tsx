import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { FieldError, Input, Label } from '@/components/ui/field'
import { useUpdateDisplayName } from '../api/update-display-name'
import { displayNameError } from '../validation'
import { Card } from '@/components/ui/card'

export function DisplayNameSection({ userId, displayName }: { userId: string; displayName: string | null }) {
  const [value, setValue] = useState(displayName ?? '')
  const [error, setError] = useState<string | null>(null)
  const update = useUpdateDisplayName(userId)
  const unchanged = value.trim() === (displayName ?? '').trim()
  return (
    <Card title="Display Name" description="The name people see on your profile and templates.">
      <form
        noValidate
        className="flex flex-col gap-3 sm:flex-row sm:items-start"
        onSubmit={(e) => {
          e.preventDefault()
          const invalid = displayNameError(value)
          setError(invalid)
          if (!invalid) update.mutate(value)
        }}
      >
        <div className="flex-1">
          <Label htmlFor="display-name" className="sr-only">Display name</Label>
          <Input
            id="display-name"
            value={value}
            maxLength={80}
            autoComplete="name"
            aria-invalid={!!error}
            aria-describedby={error ? 'display-name-error' : undefined}
            onChange={(e) => {
              setValue(e.target.value)
              if (error) setError(null)
            }}
          />
          <FieldError id="display-name-error">{error}</FieldError>
        </div>
        <Button type="submit" disabled={update.isPending || unchanged}>
          {update.isPending ? 'Saving...' : 'Save display name'}
        </Button>
      </form>
    </Card>
  )
}
