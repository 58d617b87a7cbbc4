import { useRef, useState, type FormEvent } from 'react'
import { useSearchParams } from 'react-router'
import type { Bucket } from '../api/storage'
import { File as FileIcon, Folder, FolderPlus, Pencil, Plus, Trash2, Upload } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button, buttonClass } from '@/components/ui/button'
import { ConfirmDialog, Dialog } from '@/components/ui/dialog'
import { Empty, ErrorAlert, Spinner } from '@/components/ui/feedback'
import { Field, Input } from '@/components/ui/field'
import { PageHeader } from '@/components/ui/page'
import { DataTable, Td, Th, Tr } from '@/components/ui/table'
import { cn, formatBytes, formatDateTime } from '@/lib/format'
import { toastError, toastSuccess } from '@/lib/toast'
import { useBuckets, useDeleteBucket, useObjects, useUpload } from '../api/storage'
import { crumbs, folderOf, objectPath } from '../lib/urls'
import { BucketDialog } from './bucket-dialog'
import { FilePanel } from './file-panel'

function NewFolderDialog({ onClose, onCreate }: { onClose: () => void; onCreate: (name: string) => void }) {
  const [name, setName] = useState('')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const clean = name.trim().replace(/^\/+|\/+$/g, '')
    if (clean) onCreate(clean)
  }
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()} title="New folder" description="Folders are prefixes: the folder is kept once a file is uploaded into it.">
      <form onSubmit={submit} className="space-y-3">
        <Field id="folder-name" label="Folder name">
          <Input id="folder-name" required value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        </Field>
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={!name.trim()}>
            Open folder
          </Button>
        </div>
      </form>
    </Dialog>
  )
}

function Browser({ bucket, prefix, go }: { bucket: Bucket; prefix: string; go: (prefix: string) => void }) {
  const objects = useObjects(bucket.id, prefix)
  const upload = useUpload(bucket.id)
  const removeBucket = useDeleteBucket()
  const [, setParams] = useSearchParams()
  const [chosen, setChosen] = useState<string | null>(null)
  const [editing, setEditing] = useState(false)
  const [confirmDelete, setConfirmDelete] = useState(false)
  const [newFolder, setNewFolder] = useState(false)
  const fileInput = useRef<HTMLInputElement>(null)
  const chosenFile = objects.data?.find((o) => o.id !== null && o.name === chosen)

  const onFile = (file: File | undefined) => {
    if (!file) return
    const path = objectPath(prefix, file.name)
    upload.mutate(
      { path, file },
      {
        onSuccess: () => {
          toastSuccess('File uploaded', path)
          setChosen(file.name)
        },
        onError: (e) => toastError(e, 'Upload failed'),
        onSettled: () => {
          if (fileInput.current) fileInput.current.value = ''
        },
      },
    )
  }

  return (
    <section aria-labelledby="bucket-title" className="min-w-0">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h2 id="bucket-title" className="flex flex-wrap items-center gap-2 text-lg font-semibold">
          <span className="[overflow-wrap:anywhere]">{bucket.id}</span>
          <Badge tone={bucket.public ? 'warning' : 'neutral'}>{bucket.public ? 'public' : 'private'}</Badge>
        </h2>
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" size="sm" onClick={() => setEditing(true)}>
            <Pencil className="h-4 w-4" aria-hidden /> Edit bucket
          </Button>
          <Button variant="dangerGhost" size="sm" onClick={() => setConfirmDelete(true)} disabled={removeBucket.isPending}>
            <Trash2 className="h-4 w-4" aria-hidden /> Delete bucket
          </Button>
        </div>
      </div>
      <p className="mb-3 text-xs text-slate-600">
        Size limit: {bucket.file_size_limit ? formatBytes(Number(bucket.file_size_limit)) : 'none'} · MIME types:{' '}
        {bucket.allowed_mime_types?.length ? bucket.allowed_mime_types.join(', ') : 'any'}
      </p>
      <nav aria-label="Folder path" className="mb-3 text-sm">
        <ol className="flex flex-wrap items-center gap-1">
          <li>
            <button type="button" className="font-medium text-brand-700 hover:underline" onClick={() => go('')} aria-current={prefix ? undefined : 'location'}>
              {bucket.id}
            </button>
          </li>
          {crumbs(prefix).map((c, i, all) => (
            <li key={c.prefix} className="flex items-center gap-1">
              <span aria-hidden className="text-slate-400">
                /
              </span>
              {i === all.length - 1 ? (
                <span aria-current="location" className="font-medium">
                  {c.name}
                </span>
              ) : (
                <button type="button" className="font-medium text-brand-700 hover:underline" onClick={() => go(c.prefix)}>
                  {c.name}
                </button>
              )}
            </li>
          ))}
        </ol>
      </nav>
      <div className="mb-3 flex flex-wrap gap-2">
        <label htmlFor="upload-file" className={cn(buttonClass('primary', 'sm'), 'cursor-pointer focus-within:ring-2 focus-within:ring-brand-500', upload.isPending && 'opacity-60')}>
          <Upload className="h-4 w-4" aria-hidden /> {upload.isPending ? 'Uploading…' : 'Upload file'}
        </label>
        <input id="upload-file" ref={fileInput} type="file" className="sr-only" disabled={upload.isPending} onChange={(e) => onFile(e.target.files?.[0])} />
        <Button variant="outline" size="sm" onClick={() => setNewFolder(true)}>
          <FolderPlus className="h-4 w-4" aria-hidden /> New folder
        </Button>
      </div>
      {objects.isPending ? (
        <Spinner label="Loading objects…" />
      ) : objects.isError ? (
        <ErrorAlert error={objects.error} />
      ) : objects.data.length === 0 ? (
        <Empty>{prefix ? 'This folder is empty: upload a file into it.' : 'This bucket is empty.'}</Empty>
      ) : (
        <DataTable label={`Objects in ${bucket.id}/${folderOf(prefix)}`}>
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Size</Th>
              <Th>Type</Th>
              <Th>Updated</Th>
            </tr>
          </thead>
          <tbody>
            {objects.data.map((o) => {
              const folder = o.id === null
              const meta = (o.metadata ?? {}) as { size?: number; mimetype?: string }
              return (
                <Tr key={`${folder ? 'd' : 'f'}:${o.name}`} className={o.name === chosen && !folder ? 'bg-brand-50' : undefined}>
                  <Td className="min-w-[11rem] max-w-[20rem]">
                    <button
                      type="button"
                      onClick={() => (folder ? go(objectPath(prefix, o.name)) : setChosen(o.name))}
                      aria-label={folder ? `Open folder ${o.name}` : `File ${o.name}`}
                      className="inline-flex max-w-full items-center gap-1.5 text-left font-medium text-brand-700 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
                    >
                      {folder ? <Folder className="h-4 w-4 shrink-0" aria-hidden /> : <FileIcon className="h-4 w-4 shrink-0" aria-hidden />}
                      <span className="[overflow-wrap:anywhere]">
                        {o.name}
                        {folder ? '/' : ''}
                      </span>
                    </button>
                  </Td>
                  <Td className="whitespace-nowrap">{folder ? '—' : formatBytes(meta.size)}</Td>
                  <Td className="whitespace-nowrap">{folder ? 'folder' : (meta.mimetype ?? '—')}</Td>
                  <Td className="whitespace-nowrap">{folder ? '—' : formatDateTime(o.updated_at ?? o.created_at)}</Td>
                </Tr>
              )
            })}
          </tbody>
        </DataTable>
      )}
      {chosenFile && <FilePanel key={chosenFile.name} bucket={bucket} path={objectPath(prefix, chosenFile.name)} file={chosenFile} onClose={() => setChosen(null)} />}
      {editing && <BucketDialog bucket={bucket} onClose={() => setEditing(false)} />}
      {newFolder && (
        <NewFolderDialog
          onClose={() => setNewFolder(false)}
          onCreate={(name) => {
            setNewFolder(false)
            go(objectPath(prefix, name))
          }}
        />
      )}
      <ConfirmDialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title={`Delete bucket ${bucket.id}?`}
        description="Every object in it is deleted first, then the bucket. This cannot be undone."
        confirmLabel="Empty and delete"
        onConfirm={() =>
          removeBucket.mutate(bucket.id, {
            onSuccess: () => {
              toastSuccess('Bucket deleted', bucket.id)
              setParams({})
            },
            onError: (e) => toastError(e, 'The bucket was not deleted'),
          })
        }
      />
    </section>
  )
}

export function StoragePage() {
  const buckets = useBuckets()
  const [params, setParams] = useSearchParams()
  const [creating, setCreating] = useState(false)
  const current = buckets.data?.find((b) => b.id === params.get('bucket'))
  const prefix = params.get('prefix') ?? ''

  return (
    <>
      <PageHeader
        title="Storage"
        description="Buckets and their files."
        actions={
          <Button onClick={() => setCreating(true)}>
            <Plus className="h-4 w-4" aria-hidden /> Create bucket
          </Button>
        }
      />
      {buckets.isPending ? (
        <Spinner label="Loading buckets…" />
      ) : buckets.isError ? (
        <ErrorAlert error={buckets.error} title="The buckets could not be loaded" />
      ) : (
        <div className="grid gap-4 lg:grid-cols-[15rem_minmax(0,1fr)]">
          <nav aria-label="Buckets" className="min-w-0">
            <h2 className="mb-2 text-sm font-semibold text-slate-900">Buckets ({buckets.data.length})</h2>
            <ul className="flex gap-1.5 overflow-x-auto pb-1 lg:block lg:space-y-1 lg:overflow-visible">
              {buckets.data.map((b) => (
                <li key={b.id} className="shrink-0">
                  <button
                    type="button"
                    onClick={() => setParams({ bucket: b.id })}
                    aria-current={b === current ? 'true' : undefined}
                    className={cn(
                      'flex w-full items-center justify-between gap-2 rounded-lg border px-3 py-2 text-left text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
                      b === current ? 'border-brand-300 bg-brand-50 font-medium text-brand-800' : 'border-slate-200 bg-white text-slate-800 hover:bg-slate-50',
                    )}
                  >
                    <span className="truncate">{b.id}</span>
                    <span className="text-xs font-normal text-slate-600">{b.public ? 'public' : 'private'}</span>
                  </button>
                </li>
              ))}
            </ul>
          </nav>
          {current ? (
            <Browser key={current.id} bucket={current} prefix={prefix} go={(p) => setParams(p ? { bucket: current.id, prefix: p } : { bucket: current.id })} />
          ) : (
            <Empty>Choose a bucket to browse its files.</Empty>
          )}
        </div>
      )}
      {creating && <BucketDialog bucket={null} onClose={() => setCreating(false)} onCreated={(id) => setParams({ bucket: id })} />}
    </>
  )
}
