// Edit template → "Publish an update" (issue 44, item 6): a creator replaces
// the file and/or the previews of their published template as a new
// version with a changelog line, and sees the versions so far. The file
// goes up with a progress bar and Cancel (@/lib/template-upload).
import { useState, type FormEvent } from 'react'
import { History } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { FieldError, Label, Textarea } from '@/components/ui/field'
import { UploadProgress } from '@/components/upload-progress'
import { formatDate } from '@/lib/format'
import { IMAGE_ACCEPT, isAcceptedImage, isAcceptedTemplateFile } from '@/lib/file-types'
import { logQuiet } from '@/lib/log'
import { UploadCancelledError, UploadInterruptedError } from '@/lib/resumable-upload'
import { errorText, toastError, toastSuccess } from '@/lib/toast'
import { percentOf, useTransfer } from '@/lib/upload-progress'
import { useAddTemplateVersion } from '../api/add-template-version'
import { useTemplateVersions } from '../api/get-template-versions'

export const CHANGELOG_MAX = 200
const MAX_PREVIEWS = 6

const fileInput =
  'block w-full text-sm text-slate-700 file:mr-3 file:rounded-lg file:border-0 file:bg-brand-50 file:px-4 file:py-2 ' +
  'file:text-sm file:font-medium file:text-brand-800 hover:file:bg-brand-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500'

type Errors = Partial<Record<'changelog' | 'files', string>>

/** What is wrong with an update before anything is uploaded. */
export function versionErrors(changelog: string, chosen: { file: File | null; mainPreview: File | null; previews: File[] | null }): Errors {
  const errors: Errors = {}
  const line = changelog.trim()
  if (!line) errors.changelog = 'Describe what changed in this version.'
  else if (line.length > CHANGELOG_MAX) errors.changelog = `At most ${CHANGELOG_MAX} characters.`
  if (!chosen.file && !chosen.mainPreview && !chosen.previews) errors.files = 'Choose a new template file or new preview images.'
  return errors
}

function VersionHistory({ templateId }: { templateId: string }) {
  const versions = useTemplateVersions(templateId)
  if (!versions.data || versions.data.length === 0) {
    return <p className="mt-4 text-sm text-slate-600">Version 1 (as first published). Updates you publish are listed here.</p>
  }
  return (
    <ol aria-label="Version history" className="mt-4 space-y-3">
      {versions.data.map((v) => (
        <li key={v.version} className="rounded-lg border border-slate-200 p-3 text-sm">
          <p className="font-medium text-slate-900">
            Version {v.version} · {formatDate(v.created_at)}
          </p>
          <p className="mt-0.5 break-words text-slate-700">{v.changelog}</p>
          <p className="mt-0.5 text-xs text-slate-600">
            {[v.file_changed && (v.file_name ? `New file: ${v.file_name}` : 'New file'), v.previews_changed && 'New previews']
              .filter(Boolean)
              .join(' · ')}
          </p>
        </li>
      ))}
    </ol>
  )
}

export function NewVersion({ template, userId }: { template: { id: string; price: number | string }; userId: string }) {
  const add = useAddTemplateVersion(template, userId)
  const transfer = useTransfer()
  const [changelog, setChangelog] = useState('')
  const [file, setFile] = useState<File | null>(null)
  const [mainPreview, setMainPreview] = useState<File | null>(null)
  const [previews, setPreviews] = useState<File[] | null>(null)
  const [errors, setErrors] = useState<Errors>({})
  // Inputs are remade after a publish, so they forget what was chosen.
  const [round, setRound] = useState(0)
  const paid = Math.round(Number(template.price ?? 0) * 100) > 0

  const chooseFile = (input: HTMLInputElement) => {
    const chosen = input.files?.[0] ?? null
    if (chosen && !isAcceptedTemplateFile(chosen)) {
      input.value = ''
      toastError('This file type is not accepted for templates.', 'Invalid file type')
      return
    }
    setFile(chosen)
  }
  const chooseMain = (input: HTMLInputElement) => {
    const chosen = input.files?.[0] ?? null
    if (chosen && !isAcceptedImage(chosen)) {
      input.value = ''
      toastError('Please upload an image file for the main preview.', 'Invalid file type')
      return
    }
    setMainPreview(chosen)
  }
  const choosePreviews = (input: HTMLInputElement) => {
    const chosen = Array.from(input.files ?? [])
    if (chosen.length > MAX_PREVIEWS) {
      input.value = ''
      toastError('You can only upload up to 6 total preview images.', 'Too many images')
      return
    }
    if (!chosen.every(isAcceptedImage)) {
      input.value = ''
      toastError('Please upload only image files for previews.', 'Error')
      return
    }
    setPreviews(chosen.length ? chosen : null)
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault()
    const found = versionErrors(changelog, { file, mainPreview, previews })
    setErrors(found)
    if (Object.keys(found).length > 0 || add.isPending) return
    try {
      const made = await add.mutateAsync({ next: { changelog, file, mainPreview, previews }, transfer: transfer.start() })
      toastSuccess(`Version ${made.version} published. Buyers now get the new version.`)
      setChangelog('')
      setFile(null)
      setMainPreview(null)
      setPreviews(null)
      setRound((r) => r + 1)
    } catch (error) {
      logQuiet('publishing a new version', error)
      if (error instanceof UploadCancelledError) toastError('Upload cancelled. Nothing was published.')
      else if (error instanceof UploadInterruptedError)
        toastError(
          `The connection dropped and the upload stopped at ${percentOf({ sent: error.sent, total: error.total })}%. Try again: it resumes where it stopped.`,
        )
      else toastError(errorText(error, 'Failed to publish the update. Please try again.'))
    } finally {
      transfer.finish()
    }
  }

  const uploading = add.isPending && transfer.progress && file
  const filesHint = errors.files ? 'version-files-hint version-files-error' : 'version-files-hint'
  return (
    <section aria-labelledby="new-version-heading" className="rounded-2xl border border-slate-200 bg-white p-4 sm:p-6">
      <h2 id="new-version-heading" className="text-lg font-semibold text-slate-900">
        Publish an update
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Replace the template file or the preview images. Everyone who got the template downloads the new version from now on
        {paid ? '; the file stays private to buyers.' : '.'}
      </p>
      <form key={round} onSubmit={(e) => void onSubmit(e)} noValidate className="mt-4 grid gap-5 md:grid-cols-2">
        <div>
          <Label htmlFor="version-file">New template file</Label>
          <input id="version-file" type="file" className={fileInput} onChange={(e) => chooseFile(e.currentTarget)} aria-describedby={filesHint} />
        </div>
        <div>
          <Label htmlFor="version-main-preview">New main preview</Label>
          <input
            id="version-main-preview"
            type="file"
            accept={IMAGE_ACCEPT}
            className={fileInput}
            onChange={(e) => chooseMain(e.currentTarget)}
            aria-describedby={filesHint}
          />
        </div>
        <div className="md:col-span-2">
          <Label htmlFor="version-previews">New additional previews (replace the current ones, up to 6)</Label>
          <input
            id="version-previews"
            type="file"
            multiple
            accept={IMAGE_ACCEPT}
            className={fileInput}
            onChange={(e) => choosePreviews(e.currentTarget)}
            aria-describedby={filesHint}
          />
          <p id="version-files-hint" className="mt-1 text-xs text-slate-600">
            Leave a field empty to keep what the template has.
          </p>
          <FieldError id="version-files-error">{errors.files}</FieldError>
        </div>
        <div className="md:col-span-2">
          <Label htmlFor="version-changelog">What changed</Label>
          <Textarea
            id="version-changelog"
            rows={2}
            maxLength={CHANGELOG_MAX}
            value={changelog}
            onChange={(e) => setChangelog(e.target.value)}
            aria-invalid={!!errors.changelog}
            aria-describedby={errors.changelog ? 'version-changelog-error' : 'version-changelog-hint'}
            placeholder="e.g. Fixed the broken weekly view and added a dark cover."
          />
          {errors.changelog ? (
            <FieldError id="version-changelog-error">{errors.changelog}</FieldError>
          ) : (
            <p id="version-changelog-hint" className="mt-1 flex justify-between gap-2 text-xs text-slate-600">
              <span>One line, shown on the template page.</span>
              <span aria-hidden>
                {changelog.length}/{CHANGELOG_MAX}
              </span>
            </p>
          )}
        </div>
        {uploading && transfer.progress && (
          <div className="md:col-span-2">
            <UploadProgress label={`Uploading ${file.name}`} progress={transfer.progress} onCancel={transfer.progress.sent < transfer.progress.total ? transfer.cancel : undefined} />
          </div>
        )}
        <div className="flex justify-end md:col-span-2">
          <Button type="submit" disabled={add.isPending}>
            {add.isPending ? (uploading && transfer.progress ? `Uploading... ${percentOf(transfer.progress)}%` : 'Publishing...') : 'Publish update'}
          </Button>
        </div>
      </form>
      <h3 className="mt-6 flex items-center gap-2 text-sm font-semibold text-slate-900">
        <History className="h-4 w-4" aria-hidden /> Versions
      </h3>
      <VersionHistory templateId={template.id} />
    </section>
  )
}
