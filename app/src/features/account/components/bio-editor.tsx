// The owner's bio, edited in place on their public profile (the profile route
// puts it in the profile header).
import { useState } from 'react'
import { Pencil } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Textarea } from '@/components/ui/field'
import { useUpdateBio } from '../api/update-bio'

export function BioEditor({ userId, bio }: { userId: string; bio: string | null }) {
  const [editing, setEditing] = useState(false)
  const [text, setText] = useState(bio ?? '')
  const update = useUpdateBio(userId)
  if (!editing) {
    return (
      <div className="flex items-start gap-2">
        <p className="whitespace-pre-line text-slate-700">{bio || 'No bio yet.'}</p>
        <Button variant="ghost" size="sm" onClick={() => { setText(bio ?? ''); setEditing(true) }} aria-label="Edit bio">
          <Pencil className="h-4 w-4" aria-hidden /> Edit
        </Button>
      </div>
    )
  }
  return (
    <form
      className="space-y-2"
      onSubmit={(e) => {
        e.preventDefault()
        update.mutate(text.trim(), { onSuccess: () => setEditing(false) })
      }}
    >
      <label htmlFor="bio-text" className="sr-only">Bio</label>
      <Textarea id="bio-text" rows={3} value={text} onChange={(e) => setText(e.target.value)} maxLength={500} />
      <div className="flex gap-2">
        <Button type="submit" size="sm" disabled={update.isPending}>{update.isPending ? 'Saving...' : 'Save'}</Button>
        <Button size="sm" variant="outline" onClick={() => setEditing(false)}>Cancel</Button>
      </div>
    </form>
  )
}
