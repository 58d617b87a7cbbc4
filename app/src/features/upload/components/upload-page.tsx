// The Upload screen: /upload (signed-in users) and /dashboard/admin/upload
// (admins). `?draft={id}` continues one of the user's drafts;
// `?template={id}` loads one of their rejected templates, with its feedback,
// for resubmission. A draft or rejected template that cannot be read is
// reported and the form starts empty (saving it then makes a new draft).
//
// On /dashboard/admin/upload the screen is the same: an admin uploads their
// own template (creator_id is the admin) through the same review flow. Only
// the framing differs: it renders inside the dashboard, so it skips the page
// container and says whose upload it is.
import { useEffect, useRef } from 'react'
import { useLocation, useSearchParams } from 'react-router'
import { Spinner } from '@/components/ui/feedback'
import { cn } from '@/lib/format'
import { useSession } from '@/lib/session'
import { toastError, toastSuccess } from '@/lib/toast'
import { EMPTY_FORM, formFromRow, type UploadFormValues } from '../form'
import type { UploadSource } from '../source'
import { useDraftForUpload } from '../api/get-draft-for-upload'
import { useRejectedForUpload } from '../api/get-rejected-for-upload'
import { UploadForm, type Rejection } from './upload-form'

export function UploadPage() {
  const [params] = useSearchParams()
  const { pathname } = useLocation()
  const inDashboard = pathname.startsWith('/dashboard')
  const { user } = useSession()
  const draftId = params.get('draft')
  // A draft wins when both are given.
  const rejectedId = draftId ? null : params.get('template')
  const draft = useDraftForUpload(draftId, user?.id)
  const rejected = useRejectedForUpload(rejectedId, user?.id)

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
    } else if (rejectedId) {
      if (rejected.isSuccess)
        announce(`rejected:${rejectedId}:ok`, () =>
          toastSuccess('Rejected template loaded', 'Please address the rejection feedback and resubmit.'),
        )
      if (rejected.isError)
        announce(`rejected:${rejectedId}:error`, () => toastError('Failed to load rejected template. Please try again.'))
    }
  }, [draftId, rejectedId, draft.isSuccess, draft.isError, rejected.isSuccess, rejected.isError])

  const loading = (!!draftId && draft.isPending && !!user) || (!!rejectedId && rejected.isPending && !!user)

  let initial: UploadFormValues = EMPTY_FORM
  let source: UploadSource = { kind: 'new' }
  let rejection: Rejection | undefined
  if (draftId && draft.data) {
    initial = formFromRow(draft.data)
    source = { kind: 'draft', id: draft.data.id }
  } else if (rejectedId && rejected.data) {
    initial = formFromRow(rejected.data)
    source = { kind: 'rejected', id: rejected.data.id, originalTemplateId: rejected.data.original_template_id ?? null }
    rejection = { comment: rejected.data.rejection_comment, date: rejected.data.rejection_date }
  }

  const heading = source.kind === 'draft' ? 'Edit Draft' : source.kind === 'rejected' ? 'Resubmit Template' : 'Upload Template'
  const intro =
    source.kind === 'draft'
      ? 'Pick up where you left off, then save again or submit it for review.'
      : source.kind === 'rejected'
        ? 'Update your template with the reviewer’s feedback in mind, then resubmit it.'
        : inDashboard
          ? 'Upload a template of your own. It goes through the same review as every creator’s.'
          : 'Share a template with the community. Save a draft any time; submit it when it is ready for review.'

  return (
    <div className={cn('mx-auto w-full max-w-4xl', inDashboard ? 'py-2' : 'px-4 py-8 sm:px-6')}>
      <header className="mb-6">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{heading}</h1>
        <p className="mt-1 text-slate-600">{intro}</p>
      </header>
      {loading ? (
        <Spinner label="Loading template..." />
      ) : (
        // A new key per source: the form's values start over from what was loaded.
        <UploadForm
          key={source.kind === 'new' ? 'new' : `${source.kind}:${source.id}`}
          initial={initial}
          source={source}
          rejection={rejection}
        />
      )}
    </div>
  )
}
