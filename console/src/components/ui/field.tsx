import { forwardRef, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react'
import { cn } from '@/lib/format'

const control =
  'block w-full rounded-lg border border-slate-300 bg-white px-3 text-sm text-slate-900 placeholder:text-slate-500 ' +
  'focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30 disabled:bg-slate-100 ' +
  'aria-[invalid=true]:border-red-500'

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input({ className, ...props }, ref) {
  return <input ref={ref} className={cn(control, 'h-10', className)} {...props} />
})

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement>>(function Textarea(
  { className, ...props },
  ref,
) {
  return <textarea ref={ref} className={cn(control, 'py-2', className)} {...props} />
})

export const Select = forwardRef<HTMLSelectElement, SelectHTMLAttributes<HTMLSelectElement>>(function Select({ className, ...props }, ref) {
  return <select ref={ref} className={cn(control, 'h-10 pr-8', className)} {...props} />
})

export function Label({ htmlFor, children, className }: { htmlFor: string; children: ReactNode; className?: string }) {
  return (
    <label htmlFor={htmlFor} className={cn('mb-1 block text-sm font-medium text-slate-800', className)}>
      {children}
    </label>
  )
}

/** A labelled control: label above, optional hint below. */
export function Field({ id, label, hint, children, className }: { id: string; label: ReactNode; hint?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <div className={className}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint && <p className="mt-1 text-xs text-slate-600">{hint}</p>}
    </div>
  )
}

/**
 * A labelled drop-down of plain choices; `any` (when given) is a first
 * choice with the empty value, meaning "no filter".
 */
export function ChoiceField({
  id,
  label,
  value,
  onChange,
  choices,
  any,
  className,
}: {
  id: string
  label: ReactNode
  value: string
  onChange: (value: string) => void
  choices: readonly (string | readonly [value: string, label: string])[]
  any?: string
  className?: string
}) {
  return (
    <Field id={id} label={label} className={className}>
      <Select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {any !== undefined && <option value="">{any}</option>}
        {choices.map((choice) => {
          const [v, l] = typeof choice === 'string' ? [choice, choice] : choice
          return (
            <option key={v} value={v}>
              {l}
            </option>
          )
        })}
      </Select>
    </Field>
  )
}

export function Checkbox({ id, label, className, ...props }: InputHTMLAttributes<HTMLInputElement> & { id: string; label: ReactNode }) {
  return (
    <div className={cn('flex items-center gap-2', className)}>
      <input
        id={id}
        type="checkbox"
        className="h-4 w-4 rounded border-slate-300 text-brand-600 focus-visible:ring-2 focus-visible:ring-brand-500"
        {...props}
      />
      <label htmlFor={id} className="text-sm text-slate-800">
        {label}
      </label>
    </div>
  )
}
