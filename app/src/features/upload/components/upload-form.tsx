// The upload form (spec section 2, Upload): tabs General, Visuals, Features,
// Pricing, Actions over one set of values, saved as a draft or submitted for
// review. Inactive tabs unmount; the values (chosen files included) live here.
import { useEffect, useRef, useState } from 'react'
import { useNavigate } from 'react-router'
import type { UseQueryResult } from '@tanstack/react-query'
import * as Tabs from '@radix-ui/react-tabs'
import { AlertCircle, CheckCircle2, Circle, Loader2 } from 'lucide-react'
import { MarkdownEditor } from '@/components/markdown-editor'
import { Button } from '@/components/ui/button'
import { FieldError, Input, Label, Select, Textarea } from '@/components/ui/field'
import { formatDate, formatPrice } from '@/lib/format'
import { logQuiet } from '@/lib/log'
import { scrollMotion } from '@/lib/use-media-query'
import { useSession } from '@/lib/session'
import { toastError, toastSuccess } from '@/lib/toast'
import { UploadCancelledError, UploadInterruptedError } from '@/lib/resumable-upload'
import { percentOf, useTransfer } from '@/lib/upload-progress'
import { UploadProgress } from '@/components/upload-progress'
import type { Category } from '@/lib/types'
import {
  ABOUT_MAX,
  DESCRIPTION_HINT,
  FEATURE_OPTIONS,
  REQUIREMENT_OPTIONS,
  TITLE_HINT,
  TITLE_MAX,
  missingRequired,
  priceError,
  titleTooShort,
  type UploadFormValues,
} from '../form'
import type { UploadSource } from '../source'
import { SubmissionGoneError } from '../api/replace-pending'
import { useSaveDraft } from '../api/save-draft'
import { useSubmitTemplate, type SubmitOutcome } from '../api/submit-template'
import { Checklist } from './checklist'
import { TagInput } from '@/components/tag-input'
import { VisualsTab } from './visuals-tab'

const TABS = [
  { id: 'general', label: 'General' },
  { id: 'visuals', label: 'Visuals' },
  { id: 'features', label: 'Features' },
  { id: 'pricing', label: 'Pricing' },
  { id: 'actions', label: 'Actions' },
] as const
type TabId = (typeof TABS)[number]['id']

const tabTrigger =
  'min-w-0 rounded-md px-1 py-2 text-[13px] font-medium text-slate-700 sm:px-2 sm:text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 ' +
  'data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm'

function Required() {
  return (
    <span aria-hidden className="text-red-600">
      {' '}*
    </span>
  )
}

const GONE_DRAFT =
  'This template is no longer waiting for review, so your changes were not saved. Check My Templates for its status.'
/**
 * A failed save or submit's message: an upload the person cancelled, or one
 * the connection interrupted for longer than the retries wait (its bytes are
 * kept: doing it again resumes), else `fallback`.
 */
export function failureText(error: unknown, fallback: string): string {
  if (error instanceof UploadCancelledError) return 'Upload cancelled. Nothing was saved.'
  if (error instanceof UploadInterruptedError) {
    const at = percentOf({ sent: error.sent, total: error.total })
    return `The connection dropped and the upload stopped at ${at}%. Try again: it resumes where it stopped.`
  }
  return fallback
}

const GONE_SUBMIT =
  'This template is no longer waiting for review, so your changes were not submitted. Check My Templates for its status.'

export interface Rejection {
  comment: string
  date: string
}

/** The categories' read, made by the route: the Category field's options, its loading text and its retry. */
export type CategoriesRead = Pick<UseQueryResult<Category[]>, 'data' | 'isLoading' | 'isError' | 'isFetching' | 'refetch'>

export function UploadForm({
  initial,
  source,
  rejection,
  categories,
}: {
  initial: UploadFormValues
  source: UploadSource
  rejection?: Rejection
  categories: CategoriesRead
}) {
  const { user } = useSession()
  const navigate = useNavigate()
  const saveDraft = useSaveDraft()
  const submit = useSubmitTemplate()
  const [values, setValues] = useState(initial)
  const [tab, setTab] = useState<TabId>('general')
  const [showRequired, setShowRequired] = useState(false)
  const [busy, setBusy] = useState<'draft' | 'submit' | null>(null)
  const working = useRef(false)
  // The template file's upload: its progress bar and Cancel (issue 44, item 2).
  const transfer = useTransfer()
  const tabsTop = useRef<HTMLDivElement>(null)

  /** Switches tab from a button or a check below: bring the tab bar back into view. */
  const goTo = (id: TabId) => {
    setTab(id)
    tabsTop.current?.scrollIntoView({ block: 'start', behavior: scrollMotion() })
  }

  useEffect(() => {
    if (categories.isError) toastError('Failed to load categories')
  }, [categories.isError])

  const set = <K extends keyof UploadFormValues>(key: K, value: UploadFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }))

  const priceProblem = priceError(values.price)
  const shortTitle = titleTooShort(values.title)

  const begin = (what: 'draft' | 'submit'): boolean => {
    if (working.current) return false
    working.current = true
    setBusy(what)
    return true
  }
  const end = () => {
    working.current = false
    transfer.finish()
    setBusy(null)
  }

  const onSaveDraft = async () => {
    if (!user) {
      toastError('You must be logged in to save a draft.')
      return
    }
    if (priceProblem) {
      goTo('pricing')
      toastError(priceProblem)
      return
    }
    if (!begin('draft')) return
    try {
      await saveDraft.mutateAsync({ userId: user.id, values, source, transfer: transfer.start() })
    } catch (error) {
      logQuiet('saving a draft', error)
      // Beyond the spec: a loaded pending template reviewed (or deleted) meanwhile.
      toastError(error instanceof SubmissionGoneError ? GONE_DRAFT : failureText(error, 'Failed to save draft. Please try again.'))
      end()
      return
    }
    end()
    toastSuccess('Template saved as draft successfully.')
    navigate('/dashboard/templates?tab=draft')
  }

  const onSubmit = async () => {
    if (!user) {
      toastError('Failed to submit template. Please try again.')
      return
    }
    if (missingRequired(values)) {
      setShowRequired(true)
      goTo('general')
      toastError('Please fill in all required fields.', 'Missing required fields')
      return
    }
    // Beyond the spec: the pending store refuses titles under 3 characters,
    // so say why here rather than failing at the database.
    if (shortTitle) {
      goTo('general')
      toastError(TITLE_HINT, 'Errors found')
      return
    }
    if (priceProblem) {
      goTo('pricing')
      toastError(priceProblem)
      return
    }
    if (!begin('submit')) return
    let outcome: SubmitOutcome
    try {
      outcome = await submit.mutateAsync({ userId: user.id, values, source, transfer: transfer.start() })
    } catch (error) {
      logQuiet('submitting a template', error)
      toastError(error instanceof SubmissionGoneError ? GONE_SUBMIT : failureText(error, 'Failed to submit template. Please try again.'))
      end()
      return
    }
    end()
    toastSuccess(
      outcome === 'resubmitted'
        ? 'Your template has been resubmitted for approval.'
        : 'Your template has been submitted for approval.',
    )
    navigate('/dashboard/templates')
  }

  // While the template file goes up, the buttons say how far it got.
  const uploading = transfer.progress && transfer.progress.sent < transfer.progress.total
  const busyLabel = uploading && transfer.progress ? `Uploading... ${percentOf(transfer.progress)}%` : 'Processing...'

  const invalid = (empty: boolean) => (showRequired && empty ? true : undefined)
  const nextTab = (id: TabId) => TABS[TABS.findIndex((t) => t.id === id) + 1]
  const next = (from: TabId) => {
    const following = nextTab(from)
    return following ? (
      <div className="flex justify-end border-t border-slate-200 pt-4">
        <Button variant="outline" onClick={() => goTo(following.id)}>
          Next: {following.label}
        </Button>
      </div>
    ) : null
  }

  const checks: Array<[string, boolean]> = [
    ['Title', !!values.title.trim() && !shortTitle],
    ['Short description', !!values.description.trim()],
    ['Category', !!values.categoryId],
    ['Main preview image', !!values.mainPreview],
    ['Template file', !!values.templateFile],
  ]

  return (
    <div className="space-y-6">
      {rejection && (
        <section
          aria-labelledby="upload-rejection-heading"
          className="rounded-xl border border-rose-200 bg-rose-50 p-4 text-rose-900"
        >
          <h2 id="upload-rejection-heading" className="flex items-center gap-2 font-semibold">
            <AlertCircle className="h-5 w-5" aria-hidden /> Rejection feedback
          </h2>
          <p className="mt-2 whitespace-pre-line text-sm">{rejection.comment}</p>
          {formatDate(rejection.date) && <p className="mt-2 text-xs text-rose-800">Rejected on {formatDate(rejection.date)}</p>}
        </section>
      )}

      <Tabs.Root ref={tabsTop} value={tab} onValueChange={(v) => setTab(v as TabId)} className="scroll-mt-4">
        <Tabs.List aria-label="Upload sections" className="grid w-full grid-cols-5 gap-1 rounded-lg bg-slate-100 p-1">
          {TABS.map((t) => (
            <Tabs.Trigger key={t.id} value={t.id} className={tabTrigger}>
              {t.label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>

        <div className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
          <Tabs.Content value="general" className="space-y-6">
            <div>
              <Label htmlFor="upload-title">
                Title
                <Required />
              </Label>
              <Input
                id="upload-title"
                value={values.title}
                maxLength={TITLE_MAX}
                onChange={(e) => set('title', e.target.value)}
                aria-required="true"
                aria-invalid={shortTitle || invalid(!values.title.trim())}
                aria-describedby="upload-title-hint"
                placeholder="e.g. Calm Weekly Planner"
              />
              <p id="upload-title-hint" className="mt-1 flex justify-between gap-2 text-xs text-slate-600">
                <span>{TITLE_HINT}</span>
                <span aria-hidden>
                  {values.title.length}/{TITLE_MAX}
                </span>
              </p>
              {shortTitle && (
                <div role="alert" className="mt-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
                  <p className="font-semibold">Errors found</p>
                  <p>{TITLE_HINT}</p>
                </div>
              )}
            </div>

            <div>
              <Label htmlFor="upload-description">
                Short description
                <Required />
              </Label>
              <Textarea
                id="upload-description"
                rows={3}
                value={values.description}
                onChange={(e) => set('description', e.target.value)}
                aria-required="true"
                aria-invalid={invalid(!values.description.trim())}
                aria-describedby="upload-description-hint"
                placeholder="One or two sentences for cards and the Quick Overview."
              />
              <p id="upload-description-hint" className="mt-1 text-xs text-slate-600">
                Shown on template cards and in the Quick Overview.
              </p>
            </div>

            <div>
              <MarkdownEditor
                id="upload-about"
                label="Detailed description"
                value={values.about}
                onChange={(v) => set('about', v)}
                hint={DESCRIPTION_HINT}
                rows={12}
              />
              <p className="mt-1 text-right text-xs text-slate-600" data-testid="about-count">
                {values.about.length}/{ABOUT_MAX} characters
              </p>
            </div>

            <div>
              <Label htmlFor="upload-category">
                Category
                <Required />
              </Label>
              <Select
                id="upload-category"
                value={values.categoryId}
                onChange={(e) => set('categoryId', e.target.value)}
                aria-required="true"
                aria-invalid={invalid(!values.categoryId)}
              >
                <option value="">{categories.isLoading ? 'Loading categories...' : 'Select a category'}</option>
                {(categories.data ?? []).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </Select>
              {categories.isError && !categories.data && (
                // The list could not be read (issue 24): say so beside the field, with a retry that keeps the form.
                <p role="alert" className="mt-2 flex flex-wrap items-center gap-2 text-sm text-amber-800">
                  We couldn't load the categories.
                  <Button variant="outline" size="sm" onClick={() => void categories.refetch()} disabled={categories.isFetching}>
                    {categories.isFetching ? 'Trying again...' : 'Try again'}
                  </Button>
                </p>
              )}
            </div>
            {next('general')}
          </Tabs.Content>

          <Tabs.Content value="visuals" className="space-y-6">
            <VisualsTab
              mainPreview={values.mainPreview}
              previews={values.previews}
              templateFile={values.templateFile}
              onMainPreview={(slot) => set('mainPreview', slot)}
              onPreviews={(slots) => set('previews', slots)}
              onTemplateFile={(slot) => set('templateFile', slot)}
            />
            {next('visuals')}
          </Tabs.Content>

          <Tabs.Content value="features" className="space-y-8">
            <TagInput id="upload-tag" tags={values.tags} onChange={(tags) => set('tags', tags)} />
            <Checklist
              legend="Features included"
              options={FEATURE_OPTIONS}
              value={values.features}
              onChange={(v) => set('features', v)}
            />
            <Checklist
              legend="Requirements"
              options={REQUIREMENT_OPTIONS}
              value={values.requirements}
              onChange={(v) => set('requirements', v)}
            />
            {next('features')}
          </Tabs.Content>

          <Tabs.Content value="pricing" className="space-y-6">
            <div className="max-w-xs">
              <Label htmlFor="upload-price">Price (USD)</Label>
              <Input
                id="upload-price"
                type="number"
                inputMode="decimal"
                min={0}
                step={0.01}
                value={values.price}
                onChange={(e) => set('price', e.target.value)}
                aria-invalid={priceProblem ? true : undefined}
                aria-describedby={priceProblem ? 'upload-price-error upload-price-hint' : 'upload-price-hint'}
              />
              <p id="upload-price-hint" className="mt-1 text-xs text-slate-600">
                Set 0 to offer the template for free. Shown as:{' '}
                <span className="font-medium" data-testid="price-shown">
                  {formatPrice(values.price)}
                </span>
              </p>
              <FieldError id="upload-price-error">{priceProblem}</FieldError>
            </div>
            {next('pricing')}
          </Tabs.Content>

          <Tabs.Content value="actions" className="space-y-6">
            <div>
              <h2 className="text-sm font-semibold text-slate-900">Before you submit</h2>
              <ul aria-label="Checklist before submitting" className="mt-3 space-y-1.5 text-sm">
                {checks.map(([label, done]) => (
                  <li key={label} className="flex items-center gap-2 text-slate-700">
                    {done ? (
                      <CheckCircle2 className="h-4 w-4 text-emerald-600" aria-hidden />
                    ) : (
                      <Circle className="h-4 w-4 text-slate-400" aria-hidden />
                    )}
                    <span>{label}</span>
                    <span className="sr-only">{done ? '(done)' : '(missing)'}</span>
                  </li>
                ))}
              </ul>
              <p className="mt-3 text-xs text-slate-600">
                Drafts are private to you. Submitted templates are reviewed by an admin before they are published.
              </p>
            </div>
            <div className="flex flex-col gap-3 sm:flex-row">
              <Button variant="outline" size="lg" onClick={() => void onSaveDraft()} disabled={busy !== null}>
                {busy === 'draft' && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                {busy === 'draft' ? busyLabel : 'Save Draft'}
              </Button>
              <Button size="lg" onClick={() => void onSubmit()} disabled={busy !== null}>
                {busy === 'submit' && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                {busy === 'submit' ? busyLabel : 'Submit for Review'}
              </Button>
            </div>
            {busy !== null && transfer.progress && values.templateFile?.kind === 'new' && (
              <UploadProgress
                label={`Uploading ${values.templateFile.file.name}`}
                progress={transfer.progress}
                onCancel={uploading ? transfer.cancel : undefined}
              />
            )}
          </Tabs.Content>
        </div>
      </Tabs.Root>
    </div>
  )
}
