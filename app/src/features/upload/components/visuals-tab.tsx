// Visuals: the main preview image, up to 6 additional previews (existing plus
// new, each removable) and the template file. Files are kept in the form and
// stored when the template is saved or submitted.
import { FileText, X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { toastError } from '@/lib/toast'
import { isImage, previewsError, storedFileName, type FileSlot } from '../form'
import { MAX_ADDITIONAL_PREVIEWS } from '../limits'
import { SlotImage } from './file-preview'
import { IMAGE_ACCEPT, isAcceptedTemplateFile } from '@/lib/file-types'

const fileInput =
  'block w-full text-sm text-slate-700 file:mr-3 file:rounded-lg file:border-0 file:bg-brand-50 file:px-4 file:py-2 ' +
  'file:text-sm file:font-medium file:text-brand-800 hover:file:bg-brand-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500'

function slotName(slot: FileSlot): string {
  return slot.kind === 'new' ? slot.file.name : storedFileName(slot.url)
}

export function VisualsTab({
  mainPreview,
  previews,
  templateFile,
  onMainPreview,
  onPreviews,
  onTemplateFile,
}: {
  mainPreview: FileSlot | null
  previews: FileSlot[]
  templateFile: FileSlot | null
  onMainPreview: (slot: FileSlot | null) => void
  onPreviews: (slots: FileSlot[]) => void
  onTemplateFile: (slot: FileSlot | null) => void
}) {
  const chooseMain = (input: HTMLInputElement) => {
    const file = input.files?.[0]
    input.value = ''
    if (!file) return
    if (!isImage(file)) {
      toastError('Please upload an image file for the main preview.', 'Invalid file type')
      return
    }
    onMainPreview({ kind: 'new', file })
  }
  const choosePreviews = (input: HTMLInputElement) => {
    const files = Array.from(input.files ?? [])
    input.value = ''
    if (files.length === 0) return
    const error = previewsError(previews.length, files)
    if (error) {
      toastError(error.description, error.title)
      return
    }
    onPreviews([...previews, ...files.map((file) => ({ kind: 'new' as const, file }))])
  }
  const chooseFile = (input: HTMLInputElement) => {
    const file = input.files?.[0]
    input.value = ''
    if (!file) return
    if (!isAcceptedTemplateFile(file)) {
      // Our wording: the spec shows no check of the template file's type.
      toastError('Web pages, SVG and script files cannot be uploaded as a template file.', 'Invalid file type')
      return
    }
    onTemplateFile({ kind: 'new', file })
  }
  const full = previews.length >= MAX_ADDITIONAL_PREVIEWS

  return (
    <div className="space-y-8">
      <section aria-labelledby="upload-main-preview-heading" className="space-y-3">
        <h2 id="upload-main-preview-heading" className="text-sm font-semibold text-slate-900">
          Main preview
        </h2>
        {mainPreview && (
          <div className="flex flex-wrap items-end gap-3">
            <SlotImage slot={mainPreview} alt="Main preview" className="h-40 w-full max-w-xs rounded-lg border border-slate-200" />
            <Button variant="dangerGhost" size="sm" onClick={() => onMainPreview(null)}>
              <X className="h-4 w-4" aria-hidden /> Remove main preview
            </Button>
          </div>
        )}
        <div>
          <label htmlFor="upload-main-preview" className="mb-1.5 block text-sm font-medium text-slate-800">
            Main preview image
          </label>
          <input id="upload-main-preview" type="file" accept={IMAGE_ACCEPT} className={fileInput} onChange={(e) => chooseMain(e.currentTarget)} />
          <p className="mt-1 text-xs text-slate-600">The image shown on cards and at the top of the template page.</p>
        </div>
      </section>

      <section aria-labelledby="upload-previews-heading" className="space-y-3">
        <h2 id="upload-previews-heading" className="text-sm font-semibold text-slate-900">
          Additional previews ({previews.length}/{MAX_ADDITIONAL_PREVIEWS})
        </h2>
        {previews.length > 0 && (
          <ul aria-label="Additional previews" className="grid grid-cols-2 gap-3 sm:grid-cols-3">
            {previews.map((slot, i) => (
              <li key={slot.kind === 'stored' ? slot.url : `${i}-${slot.file.name}`} className="relative">
                <SlotImage slot={slot} alt={`Preview ${i + 1}`} className="aspect-video w-full rounded-lg border border-slate-200" />
                <button
                  type="button"
                  aria-label={`Remove preview ${i + 1}`}
                  onClick={() => onPreviews(previews.filter((_, j) => j !== i))}
                  className="absolute right-1.5 top-1.5 rounded-full bg-white/90 p-1 text-red-700 shadow hover:bg-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
                >
                  <X className="h-4 w-4" aria-hidden />
                </button>
              </li>
            ))}
          </ul>
        )}
        <div>
          <label htmlFor="upload-previews" className="mb-1.5 block text-sm font-medium text-slate-800">
            Additional preview images
          </label>
          <input
            id="upload-previews"
            type="file"
            accept={IMAGE_ACCEPT}
            multiple
            disabled={full}
            className={fileInput}
            onChange={(e) => choosePreviews(e.currentTarget)}
          />
          <p className="mt-1 text-xs text-slate-600">
            {full ? 'You have reached the limit of 6 preview images.' : 'Up to 6 images in total.'}
          </p>
        </div>
      </section>

      <section aria-labelledby="upload-file-heading" className="space-y-3">
        <h2 id="upload-file-heading" className="text-sm font-semibold text-slate-900">
          Template file
        </h2>
        {templateFile && (
          <div className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 text-sm">
            <FileText className="h-4 w-4 text-slate-500" aria-hidden />
            <span className="min-w-0 flex-1 truncate" data-testid="template-file-name">
              {slotName(templateFile)}
            </span>
            <Button variant="dangerGhost" size="sm" onClick={() => onTemplateFile(null)}>
              Remove template file
            </Button>
          </div>
        )}
        <div>
          <label htmlFor="upload-template-file" className="mb-1.5 block text-sm font-medium text-slate-800">
            Template file <span aria-hidden className="text-red-600">*</span>
          </label>
          <input id="upload-template-file" type="file" aria-required="true" className={fileInput} onChange={(e) => chooseFile(e.currentTarget)} />
          <p className="mt-1 text-xs text-slate-600">The file buyers download (for example a ZIP or PDF export).</p>
        </div>
      </section>
    </div>
  )
}
