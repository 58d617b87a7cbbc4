import { useState, type FormEvent } from 'react'
import type { Bucket } from '../api/storage'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { ErrorAlert } from '@/components/ui/feedback'
import { Checkbox, Field, Input } from '@/components/ui/field'
import { toastSuccess } from '@/lib/toast'
import { useCreateBucket, useUpdateBucket } from '../api/storage'
import { parseMimeTypes, parseSizeLimit } from '../lib/urls'

/** Creates a bucket (bucket null) or edits one's limits and visibility. */
export function BucketDialog({ bucket, onClose, onCreated }: { bucket: Bucket | null; onClose: () => void; onCreated?: (id: string) => void }) {
  const editing = bucket !== null
  const [id, setId] = useState('')
  const [isPublic, setPublic] = useState(bucket?.public ?? false)
  const [limit, setLimit] = useState(bucket?.file_size_limit ? String(bucket.file_size_limit) : '')
  const [mimes, setMimes] = useState((bucket?.allowed_mime_types ?? []).join(', '))
  const [problem, setProblem] = useState<unknown>(null)
  const create = useCreateBucket()
  const update = useUpdateBucket()
  const pending = create.isPending || update.isPending

  const submit = (e: FormEvent) => {
    e.preventDefault()
    setProblem(null)
    let input
    try {
      input = { public: isPublic, fileSizeLimit: parseSizeLimit(limit), allowedMimeTypes: parseMimeTypes(mimes) }
    } catch (error) {
      setProblem(error)
      return
    }
    if (editing) {
      update.mutate(
        { id: bucket.id, ...input },
        {
          onSuccess: () => {
            toastSuccess('Bucket saved', bucket.id)
            onClose()
          },
          onError: setProblem,
        },
      )
    } else {
      const name = id.trim()
      create.mutate(
        { id: name, ...input },
        {
          onSuccess: () => {
            toastSuccess('Bucket created', name)
            onCreated?.(name)
            onClose()
          },
          onError: setProblem,
        },
      )
    }
  }

  return (
    <Dialog open onOpenChange={(o) => !o && onClose()} title={editing ? `Edit bucket ${bucket.id}` : 'Create bucket'}>
      <form onSubmit={submit} className="space-y-3">
        {!editing && (
          <Field id="bucket-id" label="Bucket id" hint="Letters, digits, dots, hyphens and underscores.">
            <Input id="bucket-id" required value={id} onChange={(e) => setId(e.target.value)} autoComplete="off" />
          </Field>
        )}
        <Checkbox id="bucket-public" label="Public (anyone can read its objects by URL)" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} />
        <Field id="bucket-limit" label="File size limit" hint="Bytes, or a size such as 5MB; empty for no limit.">
          <Input id="bucket-limit" value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="e.g. 5MB" />
        </Field>
        <Field id="bucket-mimes" label="Allowed MIME types" hint="Comma-separated, such as image/png, image/*; empty for any.">
          <Input id="bucket-mimes" value={mimes} onChange={(e) => setMimes(e.target.value)} />
        </Field>
        {problem !== null && <ErrorAlert error={problem} />}
        <div className="flex justify-end gap-2 pt-2">
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={pending || (!editing && !id.trim())}>
            {pending ? 'Saving…' : editing ? 'Save bucket' : 'Create bucket'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
