// The Upload screen: /upload (signed-in users) and /dashboard/admin/upload
// (admins). `?draft={id}` continues one of the user's drafts;
// `?template={id}` loads one of their rejected templates, with its feedback,
// for resubmission, or else one of their templates still waiting for review,
// whose submission is then replaced (My Templates links pending cards there
// too). A draft or template that cannot be read is reported and the form
// starts empty (saving it then makes a new draft).
//
// On /dashboard/admin/upload the screen is the same: an admin uploads their
// own template (creator_id is the admin) through the same review flow. Only
// the framing differs: it renders inside the dashboard, so it skips the page
// container and says whose upload it is.
import { useEffect, useRef } from 'react'
import { useLocation, useSearchParams } from 'react-router'
import { Clock } from 'lucide-react'
import { LoadError, Spinner } from '@/components/ui/feedback'
import { isConnectionProblem } from '@/lib/errors'
import { cn, formatDate } from '@/lib/format'
import { useSession } from '@/lib/session'
import { toastError, toastSuccess } from '@/lib/toast'
import { EMPTY_FORM, formFromRow, type UploadFormValues } from '../form'
import type { UploadSource } from '../source'
import { useDraftForUpload } from '../api/get-draft-for-upload'
import { SubmissionLoadError, useSubmissionForUpload } from '../api/get-submission-for-upload'
import { UploadForm, type CategoriesRead, type Rejection } from './upload-form'

export function UploadPage({ categories }: { categories: CategoriesRead }) {
  const [params] = useSearchParams()
  const { pathname } = useLocation()
  const inDashboard = pathname.startsWith('/dashboard')
  const { user } = useSession()
  const draftId = params.get('draft')
  // A draft wins when both are given.
  const templateId = draftId ? null : params.get('template')
  const draft = useDraftForUpload(draftId, user?.id)
  const submission = useSubmissionForUpload(templateId, user?.id)
  const submissionKind = submission.data?.kind
  const failedStore = submission.error instanceof SubmissionLoadError ? submission.error.store : 'rejected'

  // One toast per load outcome (effects may run twice in development).
  const announced = useRef<string | null>(null)
  useEffect(() => {
    const announce = (key: string, show: () => void) => {
      if (announced.current === key) return
      announced.current = key
      show()
    }
    if (draftId) {
      if (draft.isSuccess) announce(`draft:${draftId}:ok`, () => toastSuccess('Draft loaded'))
      if (draft.isError) announce(`draft:${draftId}:error`, () => toastError('Failed to load draft template. Please try again.'))
    } else if (templateId) {
      if (submissionKind === 'rejected')
        announce(`template:${templateId}:ok`, () =>
          toastSuccess('Rejected template loaded', 'Please address the rejection feedback and resubmit.'),
        )
      // The spec has no toast for a pending template (it only names the
      // rejected case): this one mirrors the rejected one.
      if (submissionKind === 'pending')
        announce(`template:${templateId}:ok`, () =>
          toastSuccess('Pending template loaded', 'Submitting your changes replaces the submission waiting for review.'),
        )
      if (submission.isError)
        announce(`template:${templateId}:error`, () =>
          toastError(
            failedStore === 'pending'
              ? // Beyond the spec: the pending store could not be read (not merely no such template).
                'Failed to load pending template. Please try again.'
              : 'Failed to load rejected template. Please try again.',
          ),
        )
    }
  }, [draftId, templateId, draft.isSuccess, draft.isError, submissionKind, submission.isError, failedStore])

  const loading = (!!draftId && draft.isPending && !!user) || (!!templateId && submission.isPending && !!user)
  // The draft or submission could not be read (the server out of reach): the
  // retry state, never an empty form that would save as a new template (issue 24).
  const unread =
    (!!draftId && draft.isError && isConnectionProblem(draft.error)) ||
    (!!templateId && submission.isError && isConnectionProblem(submission.error))

  let initial: UploadFormValues = EMPTY_FORM
  let source: UploadSource = { kind: 'new' }
  let rejection: Rejection | undefined
  let submittedAt: string | undefined
  if (draftId && draft.data) {
    initial = formFromRow(draft.data)
    source = { kind: 'draft', id: draft.data.id, originalTemplateId: draft.data.original_template_id ?? null }
  } else if (templateId && submission.data?.kind === 'rejected') {
    const row = submission.data.row
    initial = formFromRow(row)
    source = { kind: 'rejected', id: row.id, originalTemplateId: row.original_template_id ?? null }
    rejection = { comment: row.rejection_comment, date: row.rejection_date }
  } else if (templateId && submission.data?.kind === 'pending') {
    const row = submission.data.row
    initial = formFromRow(row)
    source = { kind: 'pending', id: row.id, originalTemplateId: row.original_template_id ?? null }
    submittedAt = row.created_at
  }

  const heading =
    source.kind === 'draft'
      ? 'Edit Draft'
      : source.kind === 'rejected'
        ? 'Resubmit Template'
        : source.kind === 'pending'
          ? 'Edit Pending Template'
          : 'Upload Template'
  const intro =
    source.kind === 'draft'
      ? 'Pick up where you left off, then save again or submit it for review.'
      : source.kind === 'rejected'
        ? 'Update your template with the reviewer’s feedback in mind, then resubmit it.'
        : source.kind === 'pending'
          ? 'This template is waiting for review. Submitting your changes replaces the submission; saving it as a draft takes it out of the review queue.'
          : inDashboard
            ? 'Upload a template of your own. It goes through the same review as every creator’s.'
            : 'Share a template with the community. Save a draft any time; submit it when it is ready for review.'

  return (
    <div className={cn('mx-auto w-full max-w-4xl', inDashboard ? 'py-2' : 'px-4 py-8 sm:px-6')}>
      <header className="mb-6">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{heading}</h1>
        <p className="mt-1 text-slate-600">{intro}</p>
        {source.kind === 'pending' && (
          <p className="mt-3 inline-flex items-center gap-1.5 rounded-full bg-amber-50 px-3 py-1 text-sm font-medium text-amber-900 ring-1 ring-amber-200">
            <Clock className="h-4 w-4" aria-hidden /> Waiting for review
            {formatDate(submittedAt) && <span className="font-normal">· submitted {formatDate(submittedAt)}</span>}
          </p>
        )}
      </header>
      {loading ? (
        <Spinner label="Loading template..." />
      ) : unread ? (
        <LoadError title="We couldn't load this template" />
      ) : (
        // A new key per source: the form's values start over from what was loaded.
        <UploadForm
          key={source.kind === 'new' ? 'new' : `${source.kind}:${source.id}`}
          initial={initial}
          source={source}
          rejection={rejection}
          categories={categories}
        />
      )}
    </div>
  )
}
