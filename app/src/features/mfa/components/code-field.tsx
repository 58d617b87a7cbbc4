import { FieldError, Input, Label } from '@/components/ui/field'
import { CODE_LENGTH } from '../validation'

/** The 6-digit code input an authenticator app's code goes into. */
export function CodeField({
  id,
  label = `${CODE_LENGTH}-digit code`,
  value,
  error,
  disabled,
  autoFocus,
  onChange,
}: {
  id: string
  label?: string
  value: string
  error: string | null
  disabled?: boolean
  autoFocus?: boolean
  onChange: (value: string) => void
}) {
  return (
    <div>
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        name="code"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9 ]*"
        maxLength={CODE_LENGTH + 2}
        placeholder="123456"
        className="max-w-48 font-mono tracking-widest"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        disabled={disabled}
        autoFocus={autoFocus}
      />
      <FieldError id={`${id}-error`}>{error}</FieldError>
    </div>
  )
}
