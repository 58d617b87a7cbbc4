// A copy button that also shows what it copies in a read-only text field, so
// the value can be copied by hand when the clipboard is refused.
import { useId, useState, type ReactNode } from 'react'
import { Copy } from 'lucide-react'
import { Button } from './button'
import { copyText } from '@/lib/clipboard'

export function CopiedValue({ label, value, copied }: { label: string; value: string; copied: boolean | null }) {
  const id = useId()
  return (
    <div className="mt-2 min-w-0">
      <label htmlFor={id} className="mb-1 block text-xs font-medium text-slate-700">
        {label}
      </label>
      <input
        id={id}
        readOnly
        value={value}
        onFocus={(e) => e.currentTarget.select()}
        className="block h-9 w-full min-w-0 rounded-lg border border-slate-300 bg-slate-50 px-2 font-mono text-xs text-slate-900"
      />
      <p role="status" className="mt-1 text-xs text-slate-600">
        {copied === null ? '' : copied ? 'Copied to the clipboard.' : 'The browser refused the clipboard: copy it from the field.'}
      </p>
    </div>
  )
}

/** A button that copies `get()`'s text and then shows it in a field labelled `fieldLabel`. */
export function CopyButton({
  children,
  get,
  fieldLabel,
  size = 'sm',
}: {
  children: ReactNode
  get: () => Promise<string> | string
  fieldLabel: string
  size?: 'sm' | 'md'
}) {
  const [value, setValue] = useState<string | null>(null)
  const [copied, setCopied] = useState<boolean | null>(null)
  const [error, setError] = useState<string | null>(null)
  return (
    <div className="min-w-0">
      <Button
        variant="outline"
        size={size}
        onClick={async () => {
          setError(null)
          try {
            const text = await get()
            setValue(text)
            setCopied(null)
            setCopied(await copyText(text))
          } catch (e) {
            setError(e instanceof Error ? e.message : 'Could not make the value.')
          }
        }}
      >
        <Copy className="h-4 w-4" aria-hidden />
        {children}
      </Button>
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
      {value !== null && <CopiedValue label={fieldLabel} value={value} copied={copied} />}
    </div>
  )
}
