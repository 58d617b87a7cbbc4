import { useState } from 'react'
import { Download, Trash2, X } from 'lucide-react'
import type { Bucket, FileObject } from '../api/storage'
import { Button } from '@/components/ui/button'
import { CopyButton } from '@/components/ui/copy-field'
import { ConfirmDialog } from '@/components/ui/dialog'
import { formatBytes, formatDateTime } from '@/lib/format'
import { toastError, toastSuccess } from '@/lib/toast'
import { downloadObject, signedUrl, useRemoveObject } from '../api/storage'
import { publicObjectUrl } from '../lib/urls'

/** The chosen file: its facts and what can be done with it. */
export function FilePanel({ bucket, path, file, onClose }: { bucket: Bucket; path: string; file: FileObject; onClose: () => void }) {
  const remove = useRemoveObject(bucket.id)
  const [confirm, setConfirm] = useState(false)
  const meta = (file.metadata ?? {}) as { size?: number; mimetype?: string }
  return (
    <section aria-labelledby="file-panel-title" className="mt-4 rounded-xl border border-brand-200 bg-white p-4">
      <div className="flex items-start justify-between gap-2">
        <h2 id="file-panel-title" className="min-w-0 text-base font-semibold [overflow-wrap:anywhere]">
          {path}
        </h2>
        <Button variant="ghost" size="iconSm" aria-label="Close file details" onClick={onClose}>
          <X className="h-4 w-4" aria-hidden />
        </Button>
      </div>
      <p className="mt-1 text-sm text-slate-600">
        {formatBytes(meta.size)} · {meta.mimetype ?? 'unknown type'} · updated {formatDateTime(file.updated_at ?? file.created_at)}
      </p>
      <div className="mt-3 flex flex-wrap items-start gap-2">
        <Button
          variant="outline"
          size="sm"
          onClick={() => downloadObject(bucket.id, path).catch((e) => toastError(e, 'Download failed'))}
        >
          <Download className="h-4 w-4" aria-hidden /> Download
        </Button>
        <Button variant="dangerGhost" size="sm" onClick={() => setConfirm(true)} disabled={remove.isPending}>
          <Trash2 className="h-4 w-4" aria-hidden /> Delete
        </Button>
      </div>
      <div className="mt-3 grid gap-3 sm:grid-cols-2">
        {bucket.public && (
          <CopyButton fieldLabel="Public URL" get={() => publicObjectUrl(location.origin, bucket.id, path)}>
            Copy public URL
          </CopyButton>
        )}
        <CopyButton fieldLabel="Signed URL (valid 1 hour)" get={() => signedUrl(bucket.id, path, 3600)}>
          Copy signed URL
        </CopyButton>
      </div>
      <ConfirmDialog
        open={confirm}
        onOpenChange={setConfirm}
        title="Delete this file?"
        description={`${bucket.id}/${path} is deleted for good.`}
        confirmLabel="Delete file"
        onConfirm={() =>
          remove.mutate(path, {
            onSuccess: () => {
              toastSuccess('File deleted', path)
              onClose()
            },
            onError: (e) => toastError(e, 'The file was not deleted'),
          })
        }
      />
    </section>
  )
}
