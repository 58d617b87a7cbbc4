import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { FieldError, Input, Label } from '@/components/ui/field'

/** A visitor's free download: an e-mail address to send the download link to. */
export function FreeDownloadDialog({
  open,
  onOpenChange,
  sending,
  onSend,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  sending: boolean
  onSend: (email: string) => void
}) {
  const [email, setEmail] = useState('')
  const [error, setError] = useState<string | null>(null)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!email.trim()) {
      setError('Please enter your email.')
      return
    }
    setError(null)
    onSend(email.trim())
  }
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Get Your Free Template" description="Enter your email address and we'll send you the download link.">
      <form onSubmit={submit} noValidate className="space-y-4">
        <div>
          <Label htmlFor="free-email">Email</Label>
          <Input
            id="free-email"
            type="email"
            autoComplete="email"
            placeholder="you@example.com"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'free-email-error' : undefined}
          />
          <FieldError id="free-email-error">{error}</FieldError>
        </div>
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={sending}>
            Cancel
          </Button>
          <Button type="submit" disabled={sending}>
            {sending ? 'Sending...' : 'Send Download Link'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
