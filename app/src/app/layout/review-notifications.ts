// A creator hears of the review of their submissions as it happens: while
// someone is signed in, the app follows their private channel
// `creator:{user id}` (only they may join it:
// policies/0401_realtime_messages.sql), on which the database announces each
// approval and rejection as `template_reviewed`
// (migrations/20261125000100_template_review_notifications.sql). Each
// announcement is a toast, and what shows the template's status (the
// dashboard, the profile's templates and pending list, template pages) is
// read again where it is on screen.
import { useQueryClient } from '@tanstack/react-query'
import { useSession } from '@/lib/session'
import { toastSuccess, toastWarning } from '@/lib/toast'
import { usePrivateBroadcast } from '@/lib/use-private-broadcast'

export const REVIEW_EVENT = 'template_reviewed'

/** The channel of a creator's own notifications. */
export const creatorTopic = (userId: string) => `creator:${userId}`

export interface ReviewNotice {
  status: 'approved' | 'rejected'
  templateId: string | null
  title: string
  reason: string | null
}

/** Reads a `template_reviewed` payload; null when it is not one. */
export function readReviewNotice(payload: Record<string, unknown>): ReviewNotice | null {
  const { status, template_id, title, rejection_reason } = payload
  if (status !== 'approved' && status !== 'rejected') return null
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null)
  return {
    status,
    templateId: text(template_id),
    title: text(title) ?? 'Your template',
    reason: status === 'rejected' ? text(rejection_reason) : null,
  }
}

/** The toast of a notice: a success naming the template, or a warning with the reason too. */
export function showReviewNotice(notice: ReviewNotice): void {
  if (notice.status === 'approved') {
    toastSuccess('Template approved', `"${notice.title}" has been approved and is now published.`)
  } else {
    toastWarning(
      'Template rejected',
      notice.reason ? `"${notice.title}" was rejected: ${notice.reason}` : `"${notice.title}" was rejected.`,
    )
  }
}

export function useReviewNotifications() {
  const { user } = useSession()
  const queryClient = useQueryClient()
  const userId = user?.id ?? ''
  usePrivateBroadcast({
    topic: creatorTopic(userId),
    event: REVIEW_EVENT,
    enabled: !!userId,
    onMessage: (payload) => {
      const notice = readReviewNotice(payload)
      if (!notice) return
      showReviewNotice(notice)
      // The dashboard's counts and lists, and the template lists and pages
      // (the profile's pending list and published templates among them).
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
      void queryClient.invalidateQueries({ queryKey: ['templates'] })
    },
  })
}
