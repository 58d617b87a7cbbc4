// The two fields of a new password (new + confirm), with their errors.
import { FieldError, Input, Label } from '@/components/ui/field'
import { MIN_PASSWORD_LENGTH, type NewPasswordErrors, type NewPasswordValues } from '@/lib/password-rules'

export function NewPasswordFields({
  idPrefix,
  values,
  errors,
  disabled,
  autoFocus,
  onChange,
}: {
  idPrefix: string
  values: NewPasswordValues
  errors: NewPasswordErrors
  disabled?: boolean
  autoFocus?: boolean
  onChange: (field: keyof NewPasswordValues, value: string) => void
}) {
  const field = (name: keyof NewPasswordValues, label: string, hint?: string) => {
    const id = `${idPrefix}-${name}`
    const described = [hint ? `${id}-hint` : '', errors[name] ? `${id}-error` : ''].filter(Boolean).join(' ')
    return (
      <div>
        <Label htmlFor={id}>{label}</Label>
        <Input
          id={id}
          name={name === 'password' ? 'new-password' : 'confirm-password'}
          type="password"
          autoComplete="new-password"
          value={values[name]}
          onChange={(e) => onChange(name, e.target.value)}
          aria-invalid={errors[name] ? true : undefined}
          aria-describedby={described || undefined}
          disabled={disabled}
          autoFocus={autoFocus && name === 'password'}
        />
        {hint && (
          <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
            {hint}
          </p>
        )}
        <FieldError id={`${id}-error`}>{errors[name]}</FieldError>
      </div>
    )
  }
  return (
    <div className="space-y-4">
      {field('password', 'New password', `At least ${MIN_PASSWORD_LENGTH} characters.`)}
      {field('confirm', 'Confirm new password')}
    </div>
  )
}
