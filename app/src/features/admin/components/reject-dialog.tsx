// Asks for the reason of a rejection, which the creator is shown. A reason is
// required: an empty one is refused here (and by the server).
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { FieldError, Label, Textarea } from '@/components/ui/field'

export function RejectDialog({
  title,
  open,
  busy,
  onOpenChange,
  onReject,
}: {
  title: string
  open: boolean
  busy: boolean
  onOpenChange: (open: boolean) => void
  onReject: (reason: string) => void
}) {
  const [reason, setReason] = useState('')
  const [error, setError] = useState<string | null>(null)

  const change = (next: boolean) => {
    if (!next) {
      setReason('')
      setError(null)
    }
    onOpenChange(next)
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!reason.trim()) {
      setError('A rejection reason is required')
      return
    }
    onReject(reason.trim())
  }

  return (
    <Dialog open={open} onOpenChange={change} title={`Reject "${title}"`} description="Give the reason for the rejection. It is shown to the creator.">
      <form onSubmit={submit} noValidate>
        <Label htmlFor="rejection-reason">Rejection reason</Label>
        <Textarea
          id="rejection-reason"
          rows={4}
          value={reason}
          aria-invalid={!!error}
          aria-describedby={error ? 'rejection-reason-error' : undefined}
          onChange={(e) => {
            setReason(e.target.value)
            setError(null)
          }}
          placeholder="What should the creator change before resubmitting?"
        />
        <FieldError id="rejection-reason-error">{error}</FieldError>
        <div className="mt-5 flex justify-end gap-2">
          <Button variant="outline" onClick={() => change(false)}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" disabled={busy}>
            {busy ? 'Rejecting...' : 'Reject Template'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
