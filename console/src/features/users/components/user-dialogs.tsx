import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { ErrorAlert } from '@/components/ui/feedback'
import { Checkbox, Field, Input } from '@/components/ui/field'
import { toastSuccess } from '@/lib/toast'
import { useCreateUser, useInviteUser } from '../api/users'

export function CreateUserDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [autoConfirm, setAutoConfirm] = useState(true)
  const create = useCreateUser()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate(
      { email: email.trim(), password, autoConfirm },
      {
        onSuccess: (user) => {
          toastSuccess('User created', user?.email ?? email)
          setEmail('')
          setPassword('')
          create.reset()
          onOpenChange(false)
        },
      },
    )
  }
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Create user" description="An e-mail account with a password.">
      <form onSubmit={submit} className="space-y-3">
        <Field id="new-user-email" label="Email">
          <Input id="new-user-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field id="new-user-password" label="Password">
          <Input id="new-user-password" type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <Checkbox id="new-user-confirm" label="Auto-confirm the e-mail address" checked={autoConfirm} onChange={(e) => setAutoConfirm(e.target.checked)} />
        {create.isError && <ErrorAlert error={create.error} />}
        <div className="flex justify-end gap-2 pt-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" disabled={create.isPending || !email.trim() || !password}>
            {create.isPending ? 'Creating…' : 'Create user'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}

export function InviteUserDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const [email, setEmail] = useState('')
  const invite = useInviteUser()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    invite.mutate(email.trim(), {
      onSuccess: () => {
        toastSuccess('Invitation sent', email.trim())
        setEmail('')
        invite.reset()
        onOpenChange(false)
      },
    })
  }
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Invite user" description="Sends an invitation e-mail with a sign-in link.">
      <form onSubmit={submit} className="space-y-3">
        <Field id="invite-email" label="Email">
          <Input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        {invite.isError && <ErrorAlert error={invite.error} />}
        <div className="flex justify-end gap-2 pt-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" disabled={invite.isPending || !email.trim()}>
            {invite.isPending ? 'Sending…' : 'Send invitation'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
