import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { Label, Textarea } from '@/components/ui/field'
import { useUpdateBio } from '../api/update-bio'
import { BIO_MAX_LENGTH } from '../constants'
import { Card } from '@/components/ui/card'

export function BioSection({ userId, bio }: { userId: string; bio: string | null }) {
  const [value, setValue] = useState(bio ?? '')
  const update = useUpdateBio(userId)
  const unchanged = value.trim() === (bio ?? '').trim()
  return (
    <Card title="Bio" description="A few words about you and what you make.">
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault()
          update.mutate(value.trim())
        }}
      >
        <Label htmlFor="bio" className="sr-only">Bio</Label>
        <Textarea
          id="bio"
          rows={4}
          value={value}
          maxLength={BIO_MAX_LENGTH}
          aria-describedby="bio-count"
          onChange={(e) => setValue(e.target.value)}
        />
        <div className="flex items-center justify-between gap-3">
          <p id="bio-count" className="text-xs text-slate-600">{value.length}/{BIO_MAX_LENGTH}</p>
          <Button type="submit" disabled={update.isPending || unchanged}>
            {update.isPending ? 'Saving...' : 'Save bio'}
          </Button>
        </div>
      </form>
    </Card>
  )
}
